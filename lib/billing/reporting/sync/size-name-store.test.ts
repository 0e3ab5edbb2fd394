import { expect, test } from "bun:test";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import { storeSizeNames } from "./size-name-store.ts";

const db = reportingDatabaseOfFile();

const rowsOf = (cloud: string) =>
  db.sql`select resource_type, member, value, name from size_names where cloud = ${cloud} order by value`;

test("a run's names replace the cloud's rows and leave other clouds alone", async () => {
  const volume = (value: string, name: string) => ({ resource_type: "volume", member: "type", value, name });
  await storeSizeNames(db.sql, "other", [volume("x", "X")]);
  expect(await storeSizeNames(db.sql, "c1", [volume("a", "ssd"), volume("b", "hdd")])).toBe(2);
  expect(
    await storeSizeNames(db.sql, "c1", [volume("b", "hdd2"), volume("c", "standard"), volume("", "e")]),
  ).toBe(2);
  expect([...(await rowsOf("c1"))]).toEqual([volume("b", "hdd2"), volume("c", "standard")]);
  expect([...(await rowsOf("other"))]).toEqual([volume("x", "X")]);
  expect(await storeSizeNames(db.sql, "c1", [volume("é".repeat(1400), "long")])).toBe(0);
  expect([...(await rowsOf("c1"))]).toEqual([]);
});
