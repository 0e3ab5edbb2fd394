import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import postgres, { type Sql } from "postgres";
import { type FreshDatabase, freshDatabase } from "../../../harness/reporting/fresh-database.ts";
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
  let fresh: FreshDatabase;
  let sql: Sql;
  beforeAll(async () => {
    fresh = await freshDatabase();
    sql = postgres(fresh.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql.end({ timeout: 5 });
    await fresh.drop();
  });

  test("the server reads back every value as it was written", async () => {
    // Any text PostgreSQL can hold: no U+0000, no lone surrogate (validation refuses both upstream).
    const value = fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000"));
    const values = fc.sample(fc.array(fc.option(value, { nil: null }), { maxLength: 20 }), 40);
    for (const sample of values) {
      // Read back as JSON: postgres.js's own array parser takes a quoted "NULL" for null.
      const [row] = await sql<
        { v: string }[]
      >`select array_to_json(${arrayLiteral(sample)}::text::text[])::text as v`;
      expect(JSON.parse(row?.v ?? "")).toEqual(sample);
    }
  });
});
