import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { testUuid } from "../../../harness/netview/test-events.ts";
import type { Row } from "./datum.ts";
import { changedColumns, diffDatabase, diffTable, rowDelta, type TableDiff } from "./row-diff.ts";

const u = testUuid;

/** The inverse of diffTable: what a consumer of a diff does with it. */
function applyTableDiff(before: Iterable<Row>, diff: TableDiff): Row[] {
  const rows = new Map<string, Row>();
  for (const row of before) rows.set(row._uuid, row);
  for (const row of diff.deleted) rows.delete(row._uuid);
  for (const row of diff.inserted) rows.set(row._uuid, row);
  for (const change of diff.updated) rows.set(change.uuid, change.new);
  return [...rows.values()];
}

const sorted = (rows: Row[]) => [...rows].sort((a, b) => (a._uuid < b._uuid ? -1 : 1));

describe("rowDelta", () => {
  const before: Row = { _uuid: u(1), name: "sw0", ports: [u(2)], other_config: { a: "1" }, tag: null };

  test("insert, delete and no change", () => {
    expect(rowDelta(undefined, before)).toEqual({ op: "insert", uuid: u(1), new: before });
    expect(rowDelta(before, undefined)).toEqual({ op: "delete", uuid: u(1), old: before });
    expect(rowDelta(before, { ...before, ports: [u(2)], other_config: { a: "1" } })).toBeUndefined();
    expect(rowDelta(undefined, undefined)).toBeUndefined();
  });

  test("an update holds the previous values of the changed columns only, and the whole new row", () => {
    const after: Row = { ...before, ports: [u(2), u(3)], other_config: { a: "2" } };
    expect(rowDelta(before, after)).toEqual({
      op: "update",
      uuid: u(1),
      old: { ports: [u(2)], other_config: { a: "1" } },
      new: after,
    });
  });

  test("null and an empty set differ, and a column on one side only counts as changed", () => {
    expect(changedColumns(before, { ...before, tag: 0 })).toEqual({ tag: null });
    expect(changedColumns({ _uuid: u(1), a: [] }, { _uuid: u(1), a: null })).toEqual({ a: [] });
    expect(changedColumns({ _uuid: u(1) }, { _uuid: u(1), extra: "x" })).toEqual({ extra: null });
  });
});

const rowArb = (id: number) =>
  fc.record({
    _uuid: fc.constant(u(id)),
    name: fc.constantFrom("a", "b"),
    n: fc.integer({ min: 0, max: 2 }),
    tags: fc.uniqueArray(fc.constantFrom("x", "y", "z")).map((t) => t.sort()),
    ids: fc.dictionary(fc.constantFrom("k", "l"), fc.constantFrom("1", "2")),
  }) as fc.Arbitrary<Row>;

const tableArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 8 })
  .chain((ids) => (ids.length === 0 ? fc.constant([] as Row[]) : fc.tuple(...ids.map(rowArb))));

describe("diffTable", () => {
  test("applying the diff to the rows before gives the rows after", () => {
    fc.assert(
      fc.property(tableArb, tableArb, (before, after) => {
        expect(sorted(applyTableDiff(before, diffTable(before, after)))).toEqual(sorted(after));
      }),
    );
  });

  test("a table diffed with itself is empty; every reported update really changed a column", () => {
    fc.assert(
      fc.property(tableArb, tableArb, (before, after) => {
        expect(diffTable(before, before)).toEqual({ inserted: [], deleted: [], updated: [] });
        for (const change of diffTable(before, after).updated) {
          expect(Object.keys(change.old).length).toBeGreaterThan(0);
        }
      }),
    );
  });

  test("lists come sorted by uuid", () => {
    const diff = diffTable(
      [{ _uuid: u(9) }, { _uuid: u(3) }],
      [
        { _uuid: u(7), a: 1 },
        { _uuid: u(2), a: 1 },
      ],
    );
    expect(diff.inserted.map((r) => r._uuid)).toEqual([u(2), u(7)]);
    expect(diff.deleted.map((r) => r._uuid)).toEqual([u(3), u(9)]);
  });
});

describe("diffDatabase", () => {
  test("names only tables that changed, from either side", () => {
    const row = { _uuid: u(1), name: "a" };
    expect(
      diffDatabase({ A: [row], B: [row], C: [] }, { A: [row], B: [{ ...row, name: "b" }], D: [row] }),
    ).toEqual({
      B: {
        inserted: [],
        deleted: [],
        updated: [{ uuid: u(1), old: { name: "a" }, new: { ...row, name: "b" } }],
      },
      D: { inserted: [row], deleted: [], updated: [] },
    });
  });
});
