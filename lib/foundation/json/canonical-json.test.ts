import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalJson, jsonEqual, jsonText } from "./canonical-json.ts";
import type { JsonValue } from "./json-value.ts";

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

/** A value nested `levels` deep, alternating objects and arrays. */
function nested(levels: number): JsonValue {
  let value: JsonValue = "leaf";
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value, 1] : { b: value, a: null };
  return value;
}

describe("values deeper than the call stack reaches (stored before decision 118)", () => {
  test("canonicalJson, jsonText and jsonEqual take them without recursing", () => {
    const deep = nested(80_000);
    // JSON.stringify throws RangeError at this depth (after seconds of unwinding), so it is not asked.
    const text = canonicalJson(deep);
    expect(text.slice(0, 30)).toBe('{"a":null,"b":[{"a":null,"b":[');
    expect(text.slice(-8)).toBe(",1]},1]}");
    expect(text).toContain('{"a":null,"b":["leaf",1]}');
    expect(jsonText(deep)).toBe(text);
    expect(jsonEqual(deep, JSON.parse(text) as JsonValue)).toBe(true);
    expect(jsonEqual(deep, nested(79_999))).toBe(false);
  });

  test("jsonText is JSON.stringify for every value it can write", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) =>
        expect(jsonText(value as JsonValue)).toBe(JSON.stringify(value)),
      ),
    );
  });
});

/** The recursive definition the iterative canonicalJson must agree with. */
function recursiveCanonical(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(recursiveCanonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${recursiveCanonical(value[k] as JsonValue)}`).join(",")}}`;
}

describe("canonicalJson against its recursive definition", () => {
  test("writes the same text for every value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value as JsonValue)).toBe(recursiveCanonical(value as JsonValue));
      }),
    );
  });
});

function reverseKeys(x: unknown): unknown {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return x;
  return Object.fromEntries(Object.entries(x).reverse());
}
