import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compare, compareBy } from "./compare.ts";

describe("compare", () => {
  test("orders text by code unit, not by locale", () => {
    expect(["b", "a", "B", "é", "e", "a"].sort(compare)).toEqual(["B", "a", "a", "b", "e", "é"]);
  });

  test("orders numbers and bigints by value, and is a total order on text", () => {
    expect([10, 9, -1].sort(compare)).toEqual([-1, 9, 10]);
    expect([10n, 9n].sort(compare)).toEqual([9n, 10n]);
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(compare(a, b) + compare(b, a)).toBe(0);
        expect(compare(a, b) === 0).toBe(a === b);
      }),
    );
  });

  test("compareBy orders items by a key, stably", () => {
    const rows = [
      { id: "b", n: 1 },
      { id: "a", n: 2 },
      { id: "b", n: 0 },
    ];
    expect(rows.sort(compareBy((r) => r.id))).toEqual([
      { id: "a", n: 2 },
      { id: "b", n: 1 },
      { id: "b", n: 0 },
    ]);
  });
});
