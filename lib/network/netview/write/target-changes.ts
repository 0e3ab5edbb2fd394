/**
 * The changes that bring rows to given states (`restore` to a snapshot, `rollback` of an applied
 * plan): a target row that is gone is inserted again under its own uuid, so references to it hold;
 * a row the target lacks is deleted; a row that differs gets back the columns that differ.
 */
import { ConflictError } from "../../../foundation/errors/svc-error.ts";
import type { ColumnValue, Row } from "../../ovsdb/datum.ts";
import { rowDelta } from "../../ovsdb/row-diff.ts";
import type { DatabaseSchema } from "../../ovsdb/schema.ts";
import type { Columns, PlannedChange } from "./plan.ts";

export interface RowTarget {
  table: string;
  uuid: string;
  /** The state to reach; null: the row must not exist. */
  row: Row | null;
}

export function changesToward(
  schema: DatabaseSchema,
  targets: readonly RowTarget[],
  current: (table: string, uuid: string) => Row | undefined,
): PlannedChange[] {
  const changes: PlannedChange[] = [];
  for (const target of targets) {
    const table = schema.tables[target.table];
    if (table === undefined) throw new ConflictError(`table ${target.table} is not in the server's schema`);
    const now = current(target.table, target.uuid);
    if (target.row === null) {
      if (now !== undefined)
        changes.push({ kind: "delete", table: target.table, uuid: target.uuid, before: now });
      continue;
    }
    const wanted: Columns = {};
    for (const name of table.columnNames) {
      const value = target.row[name];
      if (value !== undefined) wanted[name] = value;
    }
    if (now === undefined) {
      changes.push({ kind: "insert", table: target.table, uuid: target.uuid, row: wanted });
      continue;
    }
    const delta = rowDelta(now, { ...now, ...wanted });
    if (delta?.op !== "update") continue;
    const before: Columns = {};
    const after: Columns = {};
    for (const name of Object.keys(delta.old)) {
      if (table.columns[name]?.mutable === false) {
        throw new ConflictError(
          `${target.table} ${target.uuid}: column ${name} cannot change once the row exists`,
        );
      }
      before[name] = now[name] as ColumnValue;
      after[name] = wanted[name] as ColumnValue;
    }
    changes.push({ kind: "update", table: target.table, uuid: target.uuid, before, after });
  }
  return changes;
}
