import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { categoryOf } from "./category.ts";

/** The rule as the spec states it, on the split parts. */
function byParts(eventType: string) {
  const parts = eventType.split(".");
  if (parts.includes("delete")) return "delete";
  if (parts.includes("create")) return "create";
  return "update";
}

describe("categoryOf", () => {
  test("examples", () => {
    expect(
      [
        "volume.create.end",
        "sync.delete",
        "compute.instance.power_off.end",
        "a.created",
        "x.undelete",
        "create",
      ].map(categoryOf),
    ).toEqual(["create", "delete", "update", "update", "update", "create"]);
  });

  test("agrees with the rule on the dot-separated parts for any type", () => {
    const part = fc.oneof(
      fc.constantFrom("create", "delete", "end", "created", "xdelete", ""),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const type = parts.join(".");
        expect(categoryOf(type)).toBe(byParts(type));
      }),
    );
  });
});
