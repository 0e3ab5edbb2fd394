import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { JsonValue } from "../events/event.ts";
import { canonicalJson, jsonEqual } from "./canonical-json.ts";

describe("canonicalJson", () => {
  test("sorts keys at every depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 0, y: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":1,"z":0}]},"b":1}',
    );
  });

  test("key order never changes equality, and the text parses back to an equal value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const v = value as JsonValue;
        const reordered = JSON.parse(JSON.stringify(v, (_k, x) => reverseKeys(x))) as JsonValue;
        expect(jsonEqual(v, reordered)).toBe(true);
        expect(canonicalJson(JSON.parse(canonicalJson(v)) as JsonValue)).toBe(canonicalJson(v));
      }),
    );
  });

  test("different values differ", () => {
    expect(jsonEqual({ a: 1 }, { a: "1" })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
  });
});

function reverseKeys(x: unknown): unknown {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return x;
  return Object.fromEntries(Object.entries(x).reverse());
}
