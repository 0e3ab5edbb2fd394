import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsonDepth } from "./json-depth.ts";

function recursiveDepth(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(recursiveDepth));
}

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

describe("jsonDepth", () => {
  test("scalars are 0, empty containers 1, each level one more", () => {
    expect(jsonDepth("x", 10)).toBe(0);
    expect(jsonDepth(null, 10)).toBe(0);
    expect(jsonDepth({}, 10)).toBe(1);
    expect(jsonDepth([], 10)).toBe(1);
    expect(jsonDepth({ a: [1, { b: [] }], c: 2 }, 10)).toBe(4);
  });

  test("equals the depth a recursive walk counts", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => expect(jsonDepth(value, 1000)).toBe(recursiveDepth(value))),
    );
  });

  test("stops one past the cap, whatever the depth, without recursing", () => {
    expect(jsonDepth(nested(40), 32)).toBe(33);
    const parsed = JSON.parse(`${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}`);
    expect(jsonDepth(parsed, 512)).toBe(513);
    expect(jsonDepth(nested(100_000), 1_000_000)).toBe(100_000);
  });
});
