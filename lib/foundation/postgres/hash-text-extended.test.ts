import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { freshClientOfFile } from "../../../harness/reporting/fresh-database.ts";
import { arrayLiteral } from "./array-literal.ts";
import { hashTextExtended } from "./hash-text-extended.ts";

describe("hashTextExtended against PostgreSQL's hashtextextended", () => {
  const db = freshClientOfFile();

  const serverHashes = async (texts: readonly string[], seed: bigint) =>
    (
      await db.sql<{ h: string }[]>`select hashtextextended(t, ${seed.toString()}::int8)::text as h
        from unnest(${arrayLiteral(texts)}::text[]) with ordinality as x(t, n) order by n`
    ).map((r) => BigInt(r.h));

  test("every length of tail, and seeds of either half and sign", async () => {
    const texts = Array.from({ length: 40 }, (_, n) => "kéy€😀|".repeat(4).slice(0, n));
    for (const seed of [0n, 731n, 1n << 40n, -5n, (1n << 63n) - 1n])
      expect(texts.map((t) => hashTextExtended(t, seed))).toEqual(await serverHashes(texts, seed));
  });

  test("any text the server can hold", async () => {
    // No U+0000 and no lone surrogate: validation refuses both before a key is made of them.
    const text = fc.string({ unit: "grapheme", maxLength: 80 }).filter((s) => !s.includes("\u0000"));
    const seed = fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n });
    for (const [texts, s] of fc.sample(fc.tuple(fc.array(text, { maxLength: 30 }), seed), 30))
      expect(texts.map((t) => hashTextExtended(t, s))).toEqual(await serverHashes(texts, s));
  });
});
