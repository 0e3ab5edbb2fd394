import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { storableText, unstorableIn } from "./storable-text.ts";

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
