import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { storableText, unstorableIn, unstorableMember, unstorableMemberMessage } from "./storable-text.ts";

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

describe("unstorableMember", () => {
  test("names the first unstorable string or member name by its path, in document order", () => {
    const body = { a: [{ ok: "x" }, { b: "y\u0000" }], c: "\ud800" };
    expect(unstorableMember(body, "")).toEqual({ member: "a[1].b", problem: "nul", inName: false });
    expect(unstorableMember({ row: { "k\ud800": 1 } }, "body")).toEqual({
      member: "body.row.k\\ud800",
      problem: "surrogate",
      inName: true,
    });
    expect(unstorableMember({ a: ["😀", 1, null, true, { b: "é" }] }, "")).toBeNull();
    expect(unstorableMember("\u0000", "q")).toEqual({ member: "q", problem: "nul", inName: false });
  });

  test("messages name the member", () => {
    expect(unstorableMemberMessage({ member: "a.b", problem: "nul", inName: false })).toBe(
      "a.b: must not contain the NUL character",
    );
    expect(unstorableMemberMessage({ member: "a.k\\ud800", problem: "surrogate", inName: true })).toBe(
      "a.k\\ud800: the member name must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)",
    );
  });

  test("walks nesting far deeper than the call stack", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(unstorableMember(deep, "")?.problem).toBe("nul");
  });

  test("finds one exactly when some string of the value is unstorable", () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        anyUnits,
        fc.integer(),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(anyUnits, tie("value"), { maxKeys: 4 }),
      ),
    })).value;
    const strings = (v: unknown): string[] =>
      typeof v === "string"
        ? [v]
        : Array.isArray(v)
          ? v.flatMap(strings)
          : v !== null && typeof v === "object"
            ? Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)])
            : [];
    fc.assert(
      fc.property(json, (value) => {
        const bad = strings(value).some((s) => unstorableIn(s) !== null);
        expect(unstorableMember(value, "") !== null).toBe(bad);
      }),
    );
  });
});
