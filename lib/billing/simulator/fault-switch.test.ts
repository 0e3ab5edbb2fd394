import { expect, test } from "bun:test";
import { parseFaultSwitches } from "./fault-switch.ts";

test("a comma list in canonical order, a repeated name counting once", () => {
  expect(parseFaultSwitches(undefined)).toEqual([]);
  expect(parseFaultSwitches("held-back,duplicates,held-back")).toEqual(["duplicates", "held-back"]);
});

test("an unknown name is refused naming the six", () => {
  expect(() => parseFaultSwitches("duplicates,chaos")).toThrow(
    'unknown fault "chaos": the fault switches are pre-existing, missing-create, duplicates, reordering, refused-shapes, held-back',
  );
});

test("pre-existing and missing-create exclude each other", () => {
  expect(() => parseFaultSwitches("missing-create,pre-existing")).toThrow(RangeError);
});
