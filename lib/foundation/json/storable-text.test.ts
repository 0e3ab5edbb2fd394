import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { maxTextErrors, storableText, unstorableIn, unstorableTextErrors } from "./storable-text.ts";

/** Any sequence of UTF-16 code units, lone surrogates and NUL included. */
const anyUnits = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0, 0xd800, 0xdbff, 0xdc00, 0xdfff)), {
    maxLength: 20,
  })
  .map((units) => String.fromCharCode(...units));

describe("unstorableIn", () => {
  test("names the NUL character and a lone surrogate; a pair and other text are storable", () => {
    expect(unstorableIn("a\u0000b")).toBe("nul");
    expect(unstorableIn("a\ud800")).toBe("surrogate");
    expect(unstorableIn("\udfffa")).toBe("surrogate");
    expect(unstorableIn("\udc00\ud800")).toBe("surrogate");
    expect(unstorableIn("😀 é \t\u0001")).toBeNull();
    expect(unstorableIn("")).toBeNull();
  });
});

describe("storableText", () => {
  test("writes NUL and lone surrogates as escape text and keeps pairs", () => {
    expect(storableText("a\u0000b")).toBe("a\\u0000b");
    expect(storableText("x\ud800y\udfff")).toBe("x\\ud800y\\udfff");
    expect(storableText("😀\ud83d")).toBe("😀\\ud83d");
    expect(storableText("plain")).toBe("plain");
  });

  test("always gives storable text, and leaves storable text as it is", () => {
    fc.assert(
      fc.property(anyUnits, (value) => {
        const out = storableText(value);
        expect(unstorableIn(out)).toBeNull();
        if (unstorableIn(value) === null) expect(out).toBe(value);
      }),
    );
  });
});

describe("unstorableTextErrors", () => {
  test("every bad string and member name, located in document order, members by their escape text", () => {
    const value = JSON.parse(
      '{"a":"ok","b":["x","\\u0000"],"c\\ud800":1,"d":{"e":"\\udfff","f":"😀"},"g":"\\ud83d\\ude00"}',
    );
    expect(unstorableTextErrors(value, "body")).toEqual([
      { loc: "body.b.1", msg: "must not contain the NUL character" },
      {
        loc: "body.c\\ud800",
        msg: "has a member name that must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)",
      },
      { loc: "body.d.e", msg: "must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)" },
    ]);
    expect(unstorableTextErrors("\u0000", "query.cloud")).toEqual([
      { loc: "query.cloud", msg: "must not contain the NUL character" },
    ]);
    expect(unstorableTextErrors({ a: [1, null, true, "fine"] }, "body")).toEqual([]);
  });

  test("stops at maxTextErrors and walks any depth without recursing", () => {
    expect(unstorableTextErrors(Array(100).fill("\u0000"), "body")).toHaveLength(maxTextErrors);
    const deep = JSON.parse(`${"[".repeat(200_000)}"\\u0000"${"]".repeat(200_000)}`);
    expect(unstorableTextErrors(deep, "body")).toHaveLength(1);
  });

  test("finds a string exactly when unstorableIn does", () => {
    fc.assert(
      fc.property(anyUnits, (text) => {
        expect(unstorableTextErrors({ m: [text] }, "b").length).toBe(unstorableIn(text) === null ? 0 : 1);
      }),
    );
  });
});
