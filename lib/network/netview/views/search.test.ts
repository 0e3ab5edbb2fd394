import { expect, test } from "bun:test";
import { DatabaseCache } from "../../ovsdb/database-cache.ts";
import { parseSchema } from "../../ovsdb/schema.ts";
import { search } from "./search.ts";

const nb = new DatabaseCache("OVN_Northbound");
nb.replaceAll(
  parseSchema({
    name: "OVN_Northbound",
    version: "6.1.0",
    tables: { Logical_Switch: { columns: { name: { type: "string" } } } },
  }),
  {
    Logical_Switch: {
      "12345678-9abc-4def-8123-456789abcdef": { initial: { name: "digits" } },
      "abcdefab-1234-4def-8123-456789abcdef": { initial: { name: "letters" } },
      "5a1b2c3d-1234-4def-8123-456789abcdef": { initial: { name: "face" } },
    },
  },
);
const sb = new DatabaseCache("OVN_Southbound");
const found = (q: string) => search(q, { nb, sb }, 10).hits.map((h) => [h.name, h.field, h.score]);

test("a UUID prefix is found whether it mixes digits and letters, or holds only one kind", () => {
  expect(found("5a1b2c3d")).toEqual([["face", "_uuid", 70]]);
  // All digits reads as an address or a number, all letters as a word: still a UUID prefix.
  expect(found("12345678")).toEqual([["digits", "_uuid", 70]]);
  expect(found("abcdefab")).toEqual([["letters", "_uuid", 70]]);
  expect(found("12345678-9abc-4def-8123-456789abcdef")).toEqual([["digits", "_uuid", 100]]);
});

test("a word that is also hex finds the name before any UUID it begins", () => {
  expect(found("face")).toEqual([["face", "name", 90]]);
  expect(found("abcd")).toEqual([["letters", "_uuid", 70]]);
});
