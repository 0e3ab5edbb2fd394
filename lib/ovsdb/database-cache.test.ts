import { describe, expect, test } from "bun:test";
import { DatabaseCache } from "./database-cache.ts";
import type { Row } from "./datum.ts";
import { parseSchema } from "./schema.ts";
import type { RowChange } from "./update2.ts";

const schema = parseSchema({
  name: "Test",
  tables: { A: { columns: { n: { type: "integer" } } }, B: { columns: { s: { type: "string" } } } },
});
const ua = "aaaaaaaa-0000-0000-0000-000000000000";
const ub = "bbbbbbbb-0000-0000-0000-000000000000";

function synced(): DatabaseCache {
  const cache = new DatabaseCache("Test");
  cache.replaceAll(schema, { A: { [ua]: { initial: { n: 1 } } }, B: { [ub]: { initial: { s: "x" } } } });
  cache.setAuthoritative(true);
  return cache;
}

describe("DatabaseCache", () => {
  test("an update that does not fit changes nothing, not even the tables before the bad row", () => {
    const cache = synced();
    const version = cache.version;
    expect(() =>
      cache.apply({ A: { [ua]: { modify: { n: 2 } } }, B: { [ub]: { modify: { s: 7 } } } }),
    ).toThrow();
    expect(cache.get("A", ua)?.n).toBe(1);
    expect(cache.version).toBe(version);
  });

  test("rows are replaced, never mutated: a reader's row stays as it read it", () => {
    const cache = synced();
    const before = cache.get("A", ua);
    cache.apply({ A: { [ua]: { modify: { n: 5 } } } });
    expect(before?.n).toBe(1);
    expect(cache.get("A", ua)?.n).toBe(5);
  });

  test("listeners see each update whole, and a resync as row changes", () => {
    const cache = synced();
    const batches: RowChange[][] = [];
    cache.subscribe((changes) => batches.push([...changes]));
    cache.apply({ A: { [ua]: { delete: null } }, B: { [ub]: { modify: { s: "y" } } } });
    expect(batches[0]?.map((c) => [c.table, c.new === undefined])).toEqual([
      ["A", true],
      ["B", false],
    ]);
    cache.replaceAll(schema, { A: { [ua]: { initial: { n: 9 } } } });
    expect(batches[1]?.map((c) => [c.table, c.old === undefined, c.new === undefined])).toEqual([
      ["A", true, false],
      ["B", false, true],
    ]);
  });

  test("parts replace the rows they own; a table from several parts is in UUID order", () => {
    const cache = synced();
    const uc = "cccccccc-0000-0000-0000-000000000000";
    const odd = (_table: string, row: Row) => row.n === 1 || row.n === 3;
    const even = (_table: string, row: Row) => row.n === 2;
    const partTables = (rows: Record<string, { initial: { n: number } }>) =>
      new Map([["A", new Map(Object.entries(rows).map(([u, r]) => [u, { _uuid: u, n: r.initial.n }]))]]);
    // Only the even part replaced: the odd row (ua) is kept, and ordered among the new ones.
    cache.replaceParts(schema, [
      { tables: partTables({ [uc]: { initial: { n: 2 } }, [ub]: { initial: { n: 2 } } }), owns: even },
    ]);
    expect(cache.rows("A").map((r) => r._uuid)).toEqual([ua, ub, uc]);
    expect(cache.count("B")).toBe(1);
    cache.replaceParts(schema, [
      { tables: partTables({ [uc]: { initial: { n: 3 } } }), owns: odd },
      { tables: partTables({ [ua]: { initial: { n: 2 } } }), owns: even },
    ]);
    expect(cache.rows("A").map((r) => [r._uuid, r.n])).toEqual([
      [ua, 2],
      [uc, 3],
    ]);
  });

  test("a row moving between parts lands whichever part reports it first", () => {
    const isOne = (_table: string, row: Row) => row.n === 1;
    const notOne = (_table: string, row: Row) => row.n !== 1;
    // The new part's insert first: a modify; the old part's delete after it is dropped.
    let cache = synced();
    const batches: RowChange[][] = [];
    cache.subscribe((changes) => batches.push([...changes]));
    cache.apply({ A: { [ua]: { insert: { n: 2 } } } }, notOne);
    cache.apply({ A: { [ua]: { delete: null } } }, isOne);
    expect(cache.get("A", ua)?.n).toBe(2);
    expect(batches.map((b) => b.map((c) => [c.old?.n, c.new?.n]))).toEqual([[[1, 2]]]);
    // The old part's delete first, then the insert: as two changes.
    cache = synced();
    cache.apply({ A: { [ua]: { delete: null } } }, isOne);
    cache.apply({ A: { [ua]: { insert: { n: 2 } } } }, notOne);
    expect(cache.get("A", ua)?.n).toBe(2);
    // Without parts an insert of a held row is still refused.
    expect(() => synced().apply({ A: { [ua]: { insert: { n: 2 } } } })).toThrow("insert of an existing row");
  });

  test("an update before the first sync is refused", () => {
    expect(() => new DatabaseCache("Test").apply({})).toThrow("before the initial sync");
  });
});
