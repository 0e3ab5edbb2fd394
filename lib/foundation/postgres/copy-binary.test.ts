import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { freshClientOfFile } from "../../../harness/reporting/fresh-database.ts";
import { type BinaryValue, binaryColumnType, copyBinary } from "./copy-binary.ts";
import { copyFields, copyIn } from "./copy-in.ts";

describe("binaryColumnType", () => {
  test("names the types it writes, and refuses any other", () => {
    expect(
      ["text", "jsonb", "integer", "timestamp(3) with time zone", "timestamp with time zone"].map(
        binaryColumnType,
      ),
    ).toEqual(["text", "jsonb", "integer", "timestamptz", "timestamptz"]);
    expect(() => binaryColumnType("numeric")).toThrow("no binary COPY form for the SQL type numeric");
  });
});

describe("copyBinary against PostgreSQL", () => {
  const db = freshClientOfFile();
  beforeAll(async () => {
    for (const t of ["by_text", "by_binary"])
      await db.sql.unsafe(`create table ${t} (n integer, t text, j jsonb, i integer, at timestamptz(3))`);
  });

  test("stores every row as the text format of the same values does", async () => {
    // Any text PostgreSQL can hold (no U+0000, no lone surrogate), any JSON, any int4, any instant of
    // the years 0001 to 9999 at the millisecond.
    const text = fc.string({ unit: "grapheme" }).filter((s) => !s.includes("\u0000"));
    const json = fc.jsonValue().map((v) => JSON.stringify(v).replaceAll("\\u0000", ""));
    const instant = fc
      .date({
        min: new Date("0001-01-01T00:00:00Z"),
        max: new Date("9999-12-31T23:59:59.999Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
    const row = fc.tuple(
      fc.option(text, { nil: null }),
      fc.option(json, { nil: null }),
      fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: null }),
      fc.option(instant, { nil: null }),
    );
    for (const rows of fc.sample(fc.array(row, { maxLength: 30 }), 25)) {
      await db.sql`truncate by_text, by_binary`;
      const numbered: BinaryValue[][] = rows.map((r, n) => [n, ...r]);
      await copyIn(
        db.sql,
        "copy by_text from stdin",
        numbered.map((r) => `${copyFields(r.map((v) => (v === null ? null : String(v))))}\n`).join(""),
      );
      await copyIn(db.sql, "copy by_binary from stdin (format binary)", [
        copyBinary(["integer", "text", "jsonb", "integer", "timestamptz"], numbered),
      ]);
      const [differ] = await db.sql<{ n: number; rows: number }[]>`
        select count(*) filter (where a is distinct from b)::int as n, count(*)::int as rows
        from by_text a full join by_binary b using (n)`;
      expect(differ).toEqual({ n: 0, rows: rows.length });
    }
  });
});
