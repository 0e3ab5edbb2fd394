import { describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import fc from "fast-check";
import { CsvError, csvLine, csvRecords } from "./csv.ts";

// Fields drawn from the characters that matter to the dialect, and some that do not.
const field = fc
  .array(fc.constantFrom("a", "Z", "0", ",", '"', "\n", "\r", " ", "é", "\t", "'", "#"), { maxLength: 6 })
  .map((chars) => chars.join(""));
const record = fc.array(field, { minLength: 1, maxLength: 6 });
// A record of one empty field is an empty line, which readers skip: give such rows a second field.
const rows = fc
  .array(record, { minLength: 1, maxLength: 20 })
  .map((rs) => rs.map((r) => (r.length === 1 && r[0] === "" ? [...r, ""] : r)));

describe("csvLine", () => {
  test("writes the bytes csv-stringify writes", () => {
    fc.assert(
      fc.property(rows, (rs) => {
        expect(rs.map(csvLine).join("")).toBe(stringify(rs));
      }),
      { numRuns: 2000 },
    );
  });

  test("quotes only a field that needs it", () => {
    expect(csvLine(["plain", "a,b", 'say "hi"', "two\nlines", ""])).toBe(
      'plain,"a,b","say ""hi""","two\nlines",\n',
    );
  });
});

describe("csvRecords", () => {
  test("reads back what csvLine wrote, quoted newlines and all, as csv-parse reads it", () => {
    fc.assert(
      fc.property(rows, (rs) => {
        const text = rs.map(csvLine).join("");
        expect(csvRecords(text).map((r) => r.fields)).toEqual(rs);
        expect(csvRecords(text).map((r) => r.fields)).toEqual(parse(text, { relax_column_count: true }));
      }),
      { numRuns: 2000 },
    );
  });

  test("a quoted newline round-trips, and each record knows the line it starts on", () => {
    const text = csvLine(["id", "note"]) + csvLine(["1", "first\nsecond"]) + csvLine(["2", "x"]);
    expect(csvRecords(text)).toEqual([
      { line: 1, fields: ["id", "note"] },
      { line: 2, fields: ["1", "first\nsecond"] },
      { line: 4, fields: ["2", "x"] },
    ]);
  });

  test("takes \\r\\n line ends and skips empty lines", () => {
    expect(csvRecords('a,b\r\n\r\n"c",d\r\n\n')).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 3, fields: ["c", "d"] },
    ]);
  });

  test("refuses an unterminated quote and text after a closing quote, naming the record's line", () => {
    expect(() => csvRecords('a\n"b\nc')).toThrow(new CsvError("an unterminated quoted field", 2));
    expect(() => csvRecords('a\nb\n"c"d,e\n')).toThrow(new CsvError("text after a closing quote", 3));
  });
});
