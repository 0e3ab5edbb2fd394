import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { freshClientOfFile } from "../../../harness/reporting/fresh-database.ts";
import { arrayLiteral } from "./array-literal.ts";

describe("arrayLiteral", () => {
  test("quotes every element and writes null as NULL", () => {
    expect(arrayLiteral(["a", null, "NULL", 'say "hi"', "back\\slash", "{,}"])).toBe(
      '{"a",NULL,"NULL","say \\"hi\\"","back\\\\slash","{,}"}',
    );
    expect(arrayLiteral([])).toBe("{}");
  });
});

describe("arrayLiteral against PostgreSQL", () => {
  const db = freshClientOfFile();

  test("the server reads back every value as it was written", async () => {
    // Any text PostgreSQL can hold: no U+0000, no lone surrogate (validation refuses both upstream).
    const value = fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000"));
    const values = fc.sample(fc.array(fc.option(value, { nil: null }), { maxLength: 20 }), 40);
    for (const sample of values) {
      // Read back as JSON: postgres.js's own array parser takes a quoted "NULL" for null.
      const [row] = await db.sql<
        { v: string }[]
      >`select array_to_json(${arrayLiteral(sample)}::text::text[])::text as v`;
      expect(JSON.parse(row?.v ?? "")).toEqual(sample);
    }
  });
});
