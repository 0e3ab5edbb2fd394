import { describe, expect, test } from "bun:test";
import { DatabaseCache } from "./database-cache.ts";
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

  test("an update before the first sync is refused", () => {
    expect(() => new DatabaseCache("Test").apply({})).toThrow("before the initial sync");
  });
});
