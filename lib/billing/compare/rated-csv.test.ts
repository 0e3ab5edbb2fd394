import { describe, expect, test } from "bun:test";
import { csvLine } from "../../foundation/files/csv.ts";
import { ratedCsvHeader } from "../engine/export-run.ts";
import { RatedCsvError, readRatedCsv } from "./rated-csv.ts";

const row = {
  cloud: "cloud-a",
  platform: "openstack",
  resource_type: "instance",
  resource_id: 'vm "one",\nsecond line',
  project_id: "p-1",
  dimension: "vcpu_hours",
  quantity: "744.000000",
  unit_price: "0.012300",
  amount: "9.151200",
  currency: "EUR",
};
const header = `${ratedCsvHeader}\n`;

describe("readRatedCsv", () => {
  test("reads back a row the engine's writer quoted, a newline inside a field included", () => {
    const text =
      header + csvLine(Object.values(row)) + csvLine(Object.values({ ...row, resource_id: "vm-2" }));
    expect(readRatedCsv(text)).toEqual([row, { ...row, resource_id: "vm-2" }]);
  });

  test("refuses another header, a short row and broken quoting, naming the line", () => {
    expect(() => readRatedCsv("cloud,amount\n")).toThrow(RatedCsvError);
    expect(() => readRatedCsv(`${header}${csvLine(Object.values(row))}a,b\n`)).toThrow(
      "rated.csv line 4 has 2 fields, not 10",
    );
    expect(() => readRatedCsv(`${header}a,"b\n`)).toThrow("rated.csv line 2: an unterminated quoted field");
  });
});
