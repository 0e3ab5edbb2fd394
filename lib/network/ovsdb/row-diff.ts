/**
 * Differences between decoded rows (docs/ovsdb-json.md), the one core behind the change feed, the
 * snapshot diff and the write plans' predictions. Pure. Rows of one schema are canonical (sets and
 * map keys sorted), so two values are equal exactly when their JSON is.
 *
 * An update names the changed columns the way an RFC 7047 `update` notification does: `old` holds
 * only the columns that changed, with their previous values, and `new` the whole row after.
 */

import { compare } from "../../foundation/collections/compare.ts";
import { jsonEqual } from "../../foundation/json/canonical-json.ts";
import type { JsonValue } from "../../foundation/json/json-value.ts";
import type { ColumnValue, Row } from "./datum.ts";

type RowDelta =
  | { op: "insert"; uuid: string; new: Row }
  | { op: "delete"; uuid: string; old: Row }
  | { op: "update"; uuid: string; old: Partial<Row>; new: Row };

export interface TableDiff {
  inserted: Row[];
  deleted: Row[];
  updated: { uuid: string; old: Partial<Row>; new: Row }[];
}

type DatabaseRows = Readonly<Record<string, readonly Row[]>>;

export function sameValue(a: ColumnValue | undefined, b: ColumnValue | undefined): boolean {
  return jsonEqual(a as JsonValue | undefined, b as JsonValue | undefined);
}

/**
 * The previous values of the columns that differ between two versions of a row, or undefined when
 * they are equal. A column present on one side only counts as changed (schemas of two releases).
 */
export function changedColumns(before: Row, after: Row): Partial<Row> | undefined {
  let old: Partial<Row> | undefined;
  for (const column of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (column === "_uuid") continue;
    if (!sameValue(before[column], after[column])) {
      old ??= {};
      // A column only the newer side has gets `null` as its previous value.
      old[column] = before[column] ?? null;
    }
  }
  return old;
}

/** One row's change from `before` to `after` (either may be absent); undefined when nothing changed. */
export function rowDelta(before: Row | undefined, after: Row | undefined): RowDelta | undefined {
  if (before === undefined && after === undefined) return undefined;
  if (before === undefined) return { op: "insert", uuid: (after as Row)._uuid, new: after as Row };
  if (after === undefined) return { op: "delete", uuid: before._uuid, old: before };
  const old = changedColumns(before, after);
  return old === undefined ? undefined : { op: "update", uuid: after._uuid, old, new: after };
}

/** What turns the rows `before` into the rows `after` of one table, each list sorted by uuid. */
export function diffTable(before: Iterable<Row>, after: Iterable<Row>): TableDiff {
  const old = new Map<string, Row>();
  for (const row of before) old.set(row._uuid, row);
  const diff: TableDiff = { inserted: [], deleted: [], updated: [] };
  for (const row of after) {
    const previous = old.get(row._uuid);
    old.delete(row._uuid);
    const delta = rowDelta(previous, row);
    if (delta?.op === "insert") diff.inserted.push(delta.new);
    else if (delta?.op === "update") diff.updated.push({ uuid: delta.uuid, old: delta.old, new: delta.new });
  }
  diff.deleted.push(...old.values());
  diff.inserted.sort((a, b) => compare(a._uuid, b._uuid));
  diff.deleted.sort((a, b) => compare(a._uuid, b._uuid));
  diff.updated.sort((a, b) => compare(a.uuid, b.uuid));
  return diff;
}

function isEmptyDiff(diff: TableDiff): boolean {
  return diff.inserted.length === 0 && diff.deleted.length === 0 && diff.updated.length === 0;
}

/** Per table (of either side), the diff from `before` to `after`; tables without a change are left out. */
export function diffDatabase(before: DatabaseRows, after: DatabaseRows): Record<string, TableDiff> {
  const result: Record<string, TableDiff> = {};
  const tables = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const table of tables) {
    const diff = diffTable(before[table] ?? [], after[table] ?? []);
    if (!isEmptyDiff(diff)) result[table] = diff;
  }
  return result;
}
