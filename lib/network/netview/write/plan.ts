/**
 * Write plans (decision 356): the changes a write would make to the northbound database, what they
 * were computed from, and their predicted effect. Pure. A plan is applied as one transaction that
 * first `wait`s for every row it read to be as it was read, so a plan made stale by a concurrent
 * change is refused by the server itself, atomically, rather than by a racy check of ours.
 */
import { compare } from "../../../foundation/collections/compare.ts";
import { unstorableTextErrors } from "../../../foundation/json/storable-text.ts";
import type { ColumnValue, Row } from "../../ovsdb/datum.ts";
import { defaultValue, encodeValue } from "../../ovsdb/datum.ts";
import { rowDelta, type TableDiff } from "../../ovsdb/row-diff.ts";
import type { DatabaseSchema, TableSchema } from "../../ovsdb/schema.ts";

export type Columns = Record<string, ColumnValue>;

/**
 * One row change. `before` holds the values the plan read (the columns it changes for an update, the
 * whole row for a delete): apply waits for exactly these. An insert names its row by `uuid` (put back
 * as it was, by rollback and restore) or by `ref`, which other changes of the plan use as `@ref`.
 */
export type PlannedChange =
  | { kind: "insert"; table: string; uuid?: string; ref?: string; row: Columns }
  | { kind: "update"; table: string; uuid: string; before: Columns; after: Columns }
  | { kind: "delete"; table: string; uuid: string; before: Row };

export type PlanKind = "preview" | "dry-run" | "failover" | "evacuate" | "rollback" | "restore";
type PlanState = "prepared" | "applied" | "failed" | "stale" | "cancelled" | "expired";

export interface PlanResult {
  /** What the server said, for a refusal. */
  error: string | null;
  /** The uuid of each inserted row, by `ref` (or its position) in the plan. */
  inserted: Record<string, string>;
  /** The rows the transaction changed, as the monitor reported them (rollback inverts these). */
  changes: { table: string; uuid: string; old: Row | null; new: Row | null }[];
}

export interface Plan {
  id: string;
  kind: PlanKind;
  cluster: string;
  state: PlanState;
  description: string;
  created_at: string;
  created_by: string;
  expires_at: string;
  /** Dry-run: the server ran the operations and rolled them back. */
  server_checked: boolean;
  /** The plan a rollback undoes, or the snapshot a restore returns to. */
  source: { plan: string } | { snapshot: string } | null;
  changes: PlannedChange[];
  effect: Record<string, TableDiff>;
  finished_at: string | null;
  result: PlanResult | null;
}

export const placeholder = (change: PlannedChange, index: number): string =>
  change.kind === "insert" ? (change.uuid ?? `@${change.ref ?? `insert-${index}`}`) : change.uuid;

/** A row as an insert of `columns` leaves it: every other column at its default. */
export function rowWithDefaults(table: TableSchema, uuid: string, columns: Columns): Row {
  const row: Row = { _uuid: uuid };
  for (const column of table.columnNames) {
    const type = table.columns[column]?.type;
    if (type !== undefined) row[column] = columns[column] ?? defaultValue(type);
  }
  return row;
}

/** The predicted effect: per table, the rows inserted, deleted and updated (sorted by uuid). */
export function predictEffect(
  schema: DatabaseSchema,
  changes: readonly PlannedChange[],
  current: (table: string, uuid: string) => Row | undefined,
): Record<string, TableDiff> {
  const effect: Record<string, TableDiff> = {};
  const tableDiff = (table: string) => {
    effect[table] ??= { inserted: [], deleted: [], updated: [] };
    return effect[table];
  };
  changes.forEach((change, index) => {
    const table = schema.tables[change.table] as TableSchema;
    if (change.kind === "insert") {
      tableDiff(change.table).inserted.push(rowWithDefaults(table, placeholder(change, index), change.row));
    } else if (change.kind === "delete") {
      tableDiff(change.table).deleted.push(change.before);
    } else if (change.uuid.startsWith("@")) {
      // A row this plan inserts earlier: the update is part of what it inserts.
      const inserted = effect[change.table]?.inserted.find((r) => r._uuid === change.uuid);
      if (inserted !== undefined) Object.assign(inserted, change.after);
    } else {
      const old = current(change.table, change.uuid) ?? { _uuid: change.uuid, ...change.before };
      const delta = rowDelta(old, { ...old, ...change.after });
      if (delta?.op === "update")
        tableDiff(change.table).updated.push({ uuid: delta.uuid, old: delta.old, new: delta.new });
    }
  });
  for (const diff of Object.values(effect)) {
    diff.inserted.sort((a, b) => compare(a._uuid, b._uuid));
    diff.deleted.sort((a, b) => compare(a._uuid, b._uuid));
    diff.updated.sort((a, b) => compare(a.uuid, b.uuid));
  }
  return effect;
}

/** A uuid atom written `@ref` names a row this plan inserts. */
function encodeColumns(table: TableSchema, columns: Columns): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(columns)) {
    const type = table.columns[name]?.type;
    if (type === undefined) throw new Error(`${table.name}.${name}: not in the schema`);
    out[name] = namedUuids(encodeValue(value, type));
  }
  return out;
}

function namedUuids(wire: unknown): unknown {
  if (Array.isArray(wire)) {
    if (wire.length === 2 && wire[0] === "uuid" && typeof wire[1] === "string" && wire[1].startsWith("@")) {
      return ["named-uuid", wire[1].slice(1)];
    }
    return wire.map(namedUuids);
  }
  return wire;
}

/** A row by uuid, or (`@ref`) the row this transaction inserts under that name. */
const byUuid = (uuid: string) => [
  ["_uuid", "==", uuid.startsWith("@") ? ["named-uuid", uuid.slice(1)] : ["uuid", uuid]],
];

interface PlanTransaction {
  operations: unknown[];
  /** Index of each change's own operation (after the comment and the waits). */
  changeIndex: number[];
  waits: number;
}

/** The OVSDB operations of a plan: a comment naming it, the waits on what it read, then its changes. */
export function transactionOf(
  schema: DatabaseSchema,
  plan: Pick<Plan, "changes">,
  comment: string,
): PlanTransaction {
  const waits: unknown[] = [];
  const changes: unknown[] = [];
  plan.changes.forEach((change, index) => {
    const table = schema.tables[change.table];
    if (table === undefined) throw new Error(`${change.table}: not in the schema`);
    if (change.kind === "insert") {
      if (change.uuid !== undefined) {
        // Put back under its own uuid: it must not exist meanwhile.
        waits.push({
          op: "wait",
          timeout: 0,
          table: change.table,
          where: byUuid(change.uuid),
          columns: ["_uuid"],
          until: "==",
          rows: [],
        });
      }
      changes.push({
        op: "insert",
        table: change.table,
        row: encodeColumns(table, change.row),
        ...(change.uuid === undefined
          ? { "uuid-name": change.ref ?? `insert${index}` }
          : { uuid: change.uuid }),
      });
      return;
    }
    const read = change.kind === "update" ? change.before : withoutUuid(change.before, table);
    // A row inserted earlier in this transaction was read by nobody: nothing to wait for.
    if (!change.uuid.startsWith("@"))
      waits.push({
        op: "wait",
        timeout: 0,
        table: change.table,
        where: byUuid(change.uuid),
        columns: Object.keys(read),
        until: "==",
        rows: [encodeColumns(table, read)],
      });
    changes.push(
      change.kind === "update"
        ? {
            op: "update",
            table: change.table,
            where: byUuid(change.uuid),
            row: encodeColumns(table, change.after),
          }
        : { op: "delete", table: change.table, where: byUuid(change.uuid) },
    );
  });
  const first = 1 + waits.length;
  const operations = [{ op: "comment", comment }, ...waits, ...changes];
  // ovsdb-server drops the session that sends it such text, and every reader of the cluster with it:
  // the plan's readers refuse it first (plan-checks.ts), and nothing reaches the wire if one did not.
  const unstorable = unstorableTextErrors(operations, "operations")[0];
  if (unstorable !== undefined)
    throw new Error(`a plan holds text ovsdb-server cannot take: ${unstorable.loc}: ${unstorable.msg}`);
  return {
    operations,
    changeIndex: changes.map((_, i) => first + i),
    waits: waits.length,
  };
}

function withoutUuid(row: Row, table: TableSchema): Columns {
  const columns: Columns = {};
  // Ephemeral columns are not waited on: the server may rewrite them at any time.
  for (const name of table.columnNames) {
    const value = row[name];
    if (value !== undefined && table.columns[name]?.ephemeral !== true) columns[name] = value;
  }
  return columns;
}

export type Outcome =
  | { state: "applied"; inserted: Record<string, string> }
  | { state: "stale" | "failed"; error: string };

/**
 * What a transact result says: a failed `wait` means a row is no longer as the plan read it (stale);
 * any other error, including one the commit adds after the last operation, is a failure.
 */
export function outcomeOf(
  plan: Pick<Plan, "changes">,
  tx: PlanTransaction,
  result: readonly unknown[],
): Outcome {
  const at = result.findIndex(
    (r) => typeof r === "object" && r !== null && "error" in r && (r as { error: unknown }).error != null,
  );
  if (at >= 0) {
    const { error, details } = result[at] as { error: unknown; details?: unknown };
    const text = `${String(error)}${typeof details === "string" && details !== "" ? `: ${details}` : ""}`;
    const isWait = at >= 1 && at <= tx.waits;
    return isWait
      ? { state: "stale", error: `a row the plan read has changed since (${text})` }
      : { state: "failed", error: text };
  }
  const inserted: Record<string, string> = {};
  plan.changes.forEach((change, i) => {
    if (change.kind !== "insert") return;
    const reply = result[tx.changeIndex[i] as number] as { uuid?: [string, string] } | undefined;
    if (reply?.uuid !== undefined) inserted[change.ref ?? change.uuid ?? `insert-${i}`] = reply.uuid[1];
  });
  return { state: "applied", inserted };
}
