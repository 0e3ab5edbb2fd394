import { expect, test } from "bun:test";
import fc from "fast-check";
import { groupBy } from "./group-by.ts";

test("every item once, in its key's group, in input order; groups in order of first appearance", () => {
  expect([...groupBy(["b1", "a1", "b2", "c1", "a2"], (s) => s.charAt(0))]).toEqual([
    ["b", ["b1", "b2"]],
    ["a", ["a1", "a2"]],
    ["c", ["c1"]],
  ]);
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 20 })), (xs) => {
      const groups = groupBy(xs, (x) => String(x % 3));
      expect([...groups.values()].flat().sort((a, b) => a - b)).toEqual([...xs].sort((a, b) => a - b));
      for (const [key, group] of groups) {
        expect(group).toEqual(xs.filter((x) => String(x % 3) === key));
      }
    }),
  );
});
