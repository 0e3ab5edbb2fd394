import { getTableColumns } from "drizzle-orm";
import { type AnyPgColumn, getTableConfig } from "drizzle-orm/pg-core";
import postgres, { type Sql, type TransactionSql } from "postgres";
import { compare, compareBy } from "../../../foundation/collections/compare.ts";
import { groupBy } from "../../../foundation/collections/group-by.ts";
import { jsonText } from "../../../foundation/json/canonical-json.ts";
import type { JsonObject, JsonValue } from "../../../foundation/json/json-value.ts";
import { arrayLiteral } from "../../../foundation/postgres/array-literal.ts";
import { binaryColumnType, copyBinary } from "../../../foundation/postgres/copy-binary.ts";
import { type CopyValue, copyIn } from "../../../foundation/postgres/copy-in.ts";
import { hashTextExtended } from "../../../foundation/postgres/hash-text-extended.ts";
import { categoryOf } from "../../events/category.ts";
import type { CanonicalEvent, PayloadEnvelope } from "../../events/event.ts";
import {
  comparePositions,
  type HistoryEvent,
  inHistoryOrder,
  positionOf,
} from "../../history/event-order.ts";
import { foldHistory, type ResourceState, step } from "../../history/fold.ts";
import { pgInstant } from "../database.ts";
import { currentResources } from "../schema.ts";
import { type ResourceKey, resourceKeyString } from "./resource-key.ts";

/** The members of a stored event the projection needs. */
export type ProjectedEvent = Pick<
  CanonicalEvent,
  | "event_id"
  | "timestamp"
  | "event_type"
  | "platform"
  | "cloud"
  | "resource_type"
  | "resource_id"
  | "project_id"
  | "payload"
>;

export interface ProjectionStats {
  resources: number;
  /** Resources refolded from their full history because an event arrived older than the row. */
  refolded: number;
  events: number;
  /** Resources presumed new that had a row, read after the savepoint (`projectStored`). */
  presumedFound: number;
}

/**
 * Takes the transaction-scoped advisory lock of every resource key, in one statement and in the order
 * of the lock ids, so two transactions touching overlapping resources queue instead of deadlocking, and
 * a rebuild waits for an ingest holding a key. A key's lock id is `hashtextextended(key, 731)`, seeded
 * apart from other advisory users of the database; the process computes it (decision 155), so the ids
 * and their order are those of a server that computes them, whichever version of this code runs.
 */
export async function lockResources(tx: TransactionSql, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const ids = [...new Set(keys.map((k) => hashTextExtended(k, lockSeed)))].sort(compare);
  // The ids come in the array's order, and the aggregate takes each lock as it comes.
  await tx.unsafe(lockStatement, [arrayLiteral(ids.map(String))], { prepare: true });
}

const lockSeed = 731n;

interface RowState {
  platform: string;
  state: ResourceState;
  eventCount: number;
  /** Where the row is stored: it cannot move while the transaction that read it holds its lock. */
  ctid: string;
}

/** A projection row as stored: the drizzle table's own row type (decision 120). */
export type ProjectionRow = typeof currentResources.$inferSelect;
/** What the fold writes: every column but the write's own instant, which the database sets. */
type ProjectionWrite = Omit<typeof currentResources.$inferInsert, "updatedAt">;

// The statements below are written once from the table's declaration, so a column added to
// `currentResources` is read and written without naming it here again.
const columns = Object.entries(getTableColumns(currentResources)) as [keyof ProjectionRow, AnyPgColumn][];
const { name: table, primaryKeys } = getTableConfig(currentResources);
const writeInstant = currentResources.updatedAt.name;
const keyNames = new Set((primaryKeys[0]?.columns ?? []).map((c) => c.name));
const written = columns.filter(([, c]) => c.name !== writeInstant);
const recordset = (cols: typeof columns) => cols.map(([, c]) => `${c.name} ${c.getSQLType()}`).join(", ");
const keyColumns = columns.filter(([, c]) => keyNames.has(c.name));

/**
 * The rows of equally long arrays, side by side: set-returning functions in one select list run in
 * lockstep, a row at a time. In a FROM clause (`unnest(a, b) as r`) the same rows are first copied into
 * a tuplestore by the function scan, then read back: 0.6 ms of the read of 500 keys (decision 156).
 */
const zipped = (sets: readonly string[]) => `(select ${sets.join(", ")})`;

const lockStatement = `select count(pg_advisory_xact_lock(h)) from ${zipped(["unnest($1::int8[]) as h"])} as k`;

/** Reads rows under the property names of `ProjectionRow`. */
const selectList = columns.map(([prop, c]) => `r.${c.name} as "${prop}"`).join(", ");
const keyList = [...keyNames].join(", ");
/** What ingest's read returns of a row: all but the key, which the caller sent and finds by position. */
type HeldRow = Omit<ProjectionRow, "cloud" | "resourceType" | "resourceId" | "updatedAt"> & {
  rowCtid: string;
  keyIndex: number;
};
// Each key is looked up on the primary key (LATERAL … LIMIT 1: the planner cannot hash the whole table
// instead), and the row's ctid comes back with it, so the update finds the row without a lookup. The
// keys go in as one array per key column, each parsed once when bound (decision 146).
const readStatement = `select ${columns
  .filter(([, c]) => !keyNames.has(c.name) && c.name !== writeInstant)
  .map(([prop, c]) => `r.${c.name} as "${prop}"`)
  .join(", ")}, r.ctid::text as "rowCtid", k.n as "keyIndex"
  from ${zipped([
    ...keyColumns.map(([, c], i) => `unnest($${i + 1}::${c.getSQLType()}[]) as ${c.name}`),
    `generate_series(1, cardinality($1::${keyColumns[0]?.[1].getSQLType()}[])) as n`,
  ])} as k
  cross join lateral (select ctid, * from ${table} r
    where ${[...keyNames].map((k) => `r.${k} = k.${k}`).join(" and ")} limit 1) as r`;
const writtenNames = written.map(([, c]) => c.name).join(", ");
const writeStatement = `insert into ${table} (${writtenNames}, ${writeInstant})
  select ${writtenNames}, now() from json_to_recordset($1::json) as r(${recordset(written)})
  on conflict (${keyList}) do update set
  ${written
    .filter(([, c]) => !keyNames.has(c.name))
    .map(([, c]) => `${c.name} = excluded.${c.name}`)
    .join(", ")}, ${writeInstant} = now()`;

// Ingest knows which rows exist (it read them under their locks, and every writer of the projection
// holds those locks), so it inserts new rows and updates held ones without ON CONFLICT (decision 123).
// New rows go in with COPY, the write instant taking its default, now() (decision 278), in the binary
// format (decision 155).
const copyStatement = `copy ${table} (${writtenNames}) from stdin (format binary)`;
const copyTypes = written.map(([, c]) => binaryColumnType(c.getSQLType()));
// The held rows go in as one array per column (decision 145), each a parameter of its array type, read
// once when bound; a JSON recordset of the same rows was parsed twice (when bound, then row by row),
// its sizes a third time into jsonb. Each row is fetched by its ctid in a nested loop over the arrays
// (decision 149): a hash join fetched the same rows with one TID scan, then copied each into a hash
// table to meet its parameters again. The ctid alone finds the row: it was read in this transaction
// under the resource's lock, which every writer of the projection holds, so the row has not moved, and
// no key is sent to check it again (decision 155: the key's three arrays and comparisons were a third of
// the update's cost).
// A column is sent only where it changed (decision 147): most of a held row (its platform, owner,
// creation, size) stays as it was, and each value sent costs the database its parse. A column that
// changed in every row of the batch (the last event, the count) is set from its array; one that changed
// in some rows is set where a bit of the row's `changed` mask says so; one that changed in none is not in
// the statement (decision 155: a column's array and CASE on every row cost the update 0.2 ms per 1000
// events). The statement's text follows which columns are sent and how: a few shapes in practice, each
// prepared once per connection.
const updatedColumns = written.filter(([, c]) => !keyNames.has(c.name));
type Sent = "all" | "some" | "none";
const updateStatements = new Map<string, string>();
function updateStatement(sent: readonly Sent[]): string {
  const shape = sent.join(",");
  const known = updateStatements.get(shape);
  if (known) return known;
  const columns = updatedColumns.flatMap(([, c], i) => (sent[i] === "none" ? [] : [[c, sent[i]] as const]));
  let bit = 1;
  const sets = columns.map(([c, how]) => {
    if (how === "all") return `${c.name} = r.${c.name}`;
    const set = `${c.name} = case when r.changed & ${bit} <> 0 then r.${c.name} else t.${c.name} end`;
    bit <<= 1;
    return set;
  });
  const statement = `update ${table} t set ${[...sets, `${writeInstant} = now()`].join(", ")}
    from ${zipped([
      "unnest($1::tid[]) as row_ctid",
      "unnest($2::int[]) as changed",
      ...columns.map(([c], i) => `unnest($${i + 3}::${c.getSQLType()}[]) as ${c.name}`),
    ])} as r
    where t.ctid = r.row_ctid`;
  updateStatements.set(shape, statement);
  return statement;
}

/** The folded state a stored projection row holds. */
export function rowStateOf(
  r: Pick<
    ProjectionRow,
    | "state"
    | "size"
    | "projectId"
    | "createdAt"
    | "deletedAt"
    | "lastEventTimestamp"
    | "lastEventRank"
    | "lastEventId"
  >,
): ResourceState {
  return {
    state: r.state,
    size: r.size,
    project_id: r.projectId,
    created_at: r.createdAt === null ? null : pgInstant(r.createdAt),
    deleted_at: r.deletedAt === null ? null : pgInstant(r.deletedAt),
    last: {
      timestamp: pgInstant(r.lastEventTimestamp),
      rank: r.lastEventRank,
      event_id: r.lastEventId,
    },
  };
}

/** Every projection row in key order, for tests and checks that compare the whole projection. */
export async function readAllProjectionRows(sql: Sql): Promise<ProjectionRow[]> {
  return [...(await sql.unsafe<ProjectionRow[]>(`select ${selectList} from ${table} r order by ${keyList}`))];
}

/** The rows of `keys` (each with its key string), under the key strings; a key without a row is absent. */
async function readRows(tx: TransactionSql, keys: readonly KeyOf[]): Promise<Map<string, RowState>> {
  const rows = await tx.unsafe<HeldRow[]>(
    readStatement,
    keyColumns.map(([, c]) => arrayLiteral(keys.map(([, key]) => key[c.name as keyof ResourceKey]))),
    { prepare: true },
  );
  const out = new Map<string, RowState>();
  for (const r of rows) {
    const [keyString] = keys[r.keyIndex - 1] as KeyOf;
    out.set(keyString, {
      platform: r.platform,
      eventCount: r.eventCount,
      state: rowStateOf(r),
      ctid: r.rowCtid,
    });
  }
  return out;
}

/** Full stored histories of the given resources, grouped by key. */
async function readHistories(
  tx: TransactionSql,
  keys: readonly ResourceKey[],
): Promise<Map<string, { platform: string; events: HistoryEvent[] }>> {
  const out = new Map<string, { platform: string; events: HistoryEvent[] }>();
  if (keys.length === 0) return out;
  const rows = await tx<
    {
      cloud: string;
      resource_type: string;
      resource_id: string;
      platform: string;
      event_id: string;
      timestamp: string;
      event_type: string;
      project_id: string;
      payload: PayloadEnvelope;
    }[]
  >`
    select e.cloud, e.resource_type, e.resource_id, e.platform, e.event_id, e.timestamp, e.event_type,
      e.project_id, e.payload
    from events e
    join json_to_recordset(${JSON.stringify(keys)}::json) as k(cloud text, resource_type text, resource_id text)
      using (cloud, resource_type, resource_id)`;
  for (const r of rows) {
    const key = resourceKeyString(r);
    let entry = out.get(key);
    if (!entry) {
      entry = { platform: r.platform, events: [] };
      out.set(key, entry);
    }
    entry.events.push({
      event_id: r.event_id,
      timestamp: pgInstant(r.timestamp),
      event_type: r.event_type,
      project_id: r.project_id,
      payload: r.payload,
    });
  }
  return out;
}

interface RowWrite extends ResourceKey {
  platform: string;
  state: ResourceState;
  eventCount: number;
  /** The stored row's ctid, for an update by ingest. */
  ctid?: string;
  /** The stored row as read, for an update by ingest: the columns that keep their value are not sent. */
  held?: Pick<RowState, "platform" | "state" | "eventCount">;
}

function writeOf(r: RowWrite): ProjectionWrite {
  return {
    cloud: r.cloud,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    platform: r.platform,
    projectId: r.state.project_id,
    state: r.state.state,
    size: r.state.size,
    createdAt: r.state.created_at,
    deletedAt: r.state.deleted_at,
    lastEventTimestamp: r.state.last.timestamp,
    lastEventRank: r.state.last.rank,
    lastEventId: r.state.last.event_id,
    eventCount: r.eventCount,
  };
}

function recordsOf(rows: readonly RowWrite[]): JsonObject[] {
  return rows.map((r) => {
    const row = writeOf(r);
    const record: JsonObject = {};
    for (const [prop, c] of written)
      record[c.name] = (row[prop as keyof ProjectionWrite] ?? null) as JsonValue;
    return record;
  });
}

/** A column's value as PostgreSQL reads text: text and instants as they are, a size as its JSON. */
function textValue(value: ProjectionWrite[keyof ProjectionWrite]): CopyValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return jsonText(value as JsonValue);
}

/** The rows of new resources as binary COPY input, columns in `written` order. */
function copyRows(rows: readonly RowWrite[]): Uint8Array {
  return copyBinary(
    copyTypes,
    rows.map((r) => {
      const row = writeOf(r);
      return written.map(([prop], i) => {
        const value = row[prop as keyof ProjectionWrite] ?? null;
        return copyTypes[i] === "jsonb" && value !== null ? jsonText(value as JsonValue) : value;
      }) as (string | number | null)[];
    }),
  );
}

/**
 * The update of held rows: its statement (`updateStatement`) and parameters, the rows' ctids (the update
 * fetches exactly those), each row's mask of the columns changed in some rows, then the array of each
 * column sent, in `updatedColumns` order.
 */
function heldRowsUpdate(rows: readonly RowWrite[]): { statement: string; parameters: string[] } {
  const writes = rows.map(writeOf);
  const stored = rows.map((r) => (r.held ? writeOf({ ...r, ...r.held }) : undefined));
  const columns = updatedColumns.map(([prop]) => {
    const values = writes.map((w, i) => {
      const value = textValue(w[prop as keyof ProjectionWrite]);
      const before = stored[i];
      return before !== undefined && textValue(before[prop as keyof ProjectionWrite]) === value
        ? undefined
        : value;
    });
    const changes = values.filter((v) => v !== undefined).length;
    const sent: Sent = changes === 0 ? "none" : changes === values.length ? "all" : "some";
    return { sent, values };
  });
  const changed = rows.map(() => 0);
  let bit = 1;
  for (const { sent, values } of columns) {
    if (sent !== "some") continue;
    values.forEach((v, i) => {
      if (v !== undefined) changed[i] = (changed[i] as number) | bit;
    });
    bit <<= 1;
  }
  return {
    statement: updateStatement(columns.map((c) => c.sent)),
    parameters: [
      arrayLiteral(rows.map((r) => r.ctid ?? null)),
      arrayLiteral(changed.map(String)),
      ...columns.filter((c) => c.sent !== "none").map((c) => arrayLiteral(c.values.map((v) => v ?? null))),
    ],
  };
}

/** Upserts rows that may or may not be stored (the rebuild). */
async function writeRows(tx: TransactionSql, rows: readonly RowWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.unsafe(writeStatement, [jsonText(recordsOf(rows))], { prepare: true });
}

/**
 * Updates held rows and inserts the rows of new resources, in one round trip (ingest). The update is
 * sent first: a statement sent behind a COPY would reach the server while it reads the COPY's data.
 */
async function insertAndUpdateRows(
  tx: TransactionSql,
  rows: { inserts: readonly RowWrite[]; updates: readonly RowWrite[] },
): Promise<void> {
  const update = rows.updates.length > 0 ? heldRowsUpdate(rows.updates) : undefined;
  await Promise.all([
    update && tx.unsafe(update.statement, update.parameters, { prepare: true }).execute(),
    rows.inserts.length > 0 && copyIn(tx, copyStatement, [copyRows(rows.inserts)]),
  ]);
}

function keyOf(e: ResourceKey): ResourceKey {
  return { cloud: e.cloud, resource_type: e.resource_type, resource_id: e.resource_id };
}

/**
 * A batch's stored events by resource key, each resource's in history order: grouped once, for both
 * the locks and read (`lockedRows`) and the fold (`projectEvents`).
 */
export type ResourceEvents = ReadonlyMap<string, readonly ProjectedEvent[]>;

export function resourceEventsOf(events: readonly ProjectedEvent[]): ResourceEvents {
  const groups = new Map<string, readonly ProjectedEvent[]>();
  for (const [key, group] of groupBy(events, resourceKeyString)) groups.set(key, inHistoryOrder(group));
  return groups;
}

/** The projection rows of some resources, read under their locks, by resource key. */
type LockedRows = ReadonlyMap<string, RowState>;

/** A resource key string with its key. */
type KeyOf = readonly [string, ResourceKey];

/**
 * Takes the locks of the resources in `groups` and reads the rows of those not presumed new after the
 * locks. A resource whose earliest event in the batch is a create is presumed to have no row, and its row
 * is not read (decision 150): a resource's history begins with its create, so a batch meeting the create
 * meets a resource with no row yet. Both statements go out at once and PostgreSQL runs them in order, so
 * the read still sees every row committed before the lock was granted (decision 121).
 */
async function lockedRows(
  tx: TransactionSql,
  groups: ResourceEvents,
): Promise<{ rows: LockedRows; presumed: KeyOf[] }> {
  // In key order, the read's index probes walk the primary key from left to right, each near the last
  // one's pages, rather than at random (decision 128).
  const sorted = [...groups].sort(compareBy(([k]) => k));
  const reads: KeyOf[] = [];
  const presumed: KeyOf[] = [];
  for (const [k, group] of sorted) {
    const first = group[0] as ProjectedEvent;
    (categoryOf(first.event_type) === "create" ? presumed : reads).push([k, keyOf(first)]);
  }
  const [, rows] = await Promise.all([
    lockResources(
      tx,
      sorted.map(([k]) => k),
    ),
    reads.length > 0 ? readRows(tx, reads) : new Map<string, RowState>(),
  ]);
  return { rows, presumed };
}

/** The failure of inserting a row presumed new that exists. */
function presumedNewConflict(error: unknown): boolean {
  return error instanceof postgres.PostgresError && error.code === "23505" && error.table_name === table;
}

/**
 * Every statement of the projection looks rows up by key: at most 1000 keys, in tables of any size. The
 * planner cannot know that: it takes an array for 10 rows, and its statistics lag tables that grow by a
 * batch at a time. A plan made while a table was small or empty, then cached, kept scanning the table
 * whole once per key as it grew (decision 125). So from the projection on, a batch's transaction plans
 * without a sequential scan, and each statement is planned once per connection (a generic plan): the
 * read probes the primary key with its whole key and the update fetches rows by ctid, plans right for a
 * table of any size, where planning them anew for each batch cost 0.4 ms per 1000 events (decision 157).
 * The statements before it (the size rules, the dead letters, the events) keep the default rule.
 */
function keyLookupsOnly(tx: TransactionSql) {
  return tx`select set_config('plan_cache_mode', 'force_generic_plan', true),
    set_config('enable_seqscan', 'off', true)`.execute();
}

/**
 * Runs `read` planned for the tables as they are now (a custom plan), then restores the generic rule:
 * the refold's join of histories has no plan right for every size of the events table.
 */
async function customPlanned<T>(tx: TransactionSql, read: () => Promise<T>): Promise<T> {
  await tx`select set_config('plan_cache_mode', 'force_custom_plan', true)`;
  const result = await read();
  await tx`select set_config('plan_cache_mode', 'force_generic_plan', true)`;
  return result;
}

/**
 * Folds a batch's newly stored events (`groups`) into the projection, inside the transaction that stored
 * them, under their resources' locks (ingest). Where a row presumed absent exists (a create arriving after
 * the resource's other events, an id created again, a batch of the resource's later events that committed
 * first), the insert of the presumed row fails on the primary key: the writes go back to a savepoint
 * taken before them, the presumed rows are read under the locks already held, and the batch folds again
 * (decision 155). Only the projection's writes are redone, not the batch.
 */
export async function projectStored(tx: TransactionSql, groups: ResourceEvents): Promise<ProjectionStats> {
  if (groups.size === 0) return { resources: 0, refolded: 0, events: 0, presumedFound: 0 };
  // The plan rule goes out ahead of the locks and the read, in their round trip.
  const [, { rows, presumed }] = await Promise.all([keyLookupsOnly(tx), lockedRows(tx, groups)]);
  if (presumed.length === 0) return projectEvents(tx, groups, rows);
  // Sent ahead of the writes, in the same round trip.
  const mark = tx.unsafe("savepoint presumed_new").execute();
  try {
    const [, stats] = await Promise.all([mark, projectEvents(tx, groups, rows)]);
    return stats;
  } catch (error) {
    if (!presumedNewConflict(error)) throw error;
    await tx.unsafe("rollback to savepoint presumed_new");
    const found = await readRows(tx, presumed);
    const stats = await projectEvents(tx, groups, new Map([...rows, ...found]));
    return { ...stats, presumedFound: found.size };
  }
}

/**
 * Folds newly stored events (`groups`) into the projection, inside the transaction that stored them (so
 * the row and the history commit together), from `rows`: the locked rows of at least every resource the
 * events touch (`lockedRows`), where a resource without one has no row or is presumed new.
 * A resource whose new events all come after the position its row last folded
 * steps on from the row (or from nothing, for a new resource); any other (an older arrival) is refolded
 * from its full stored history, which already holds the new events. Either way the row equals the fold
 * of the history in order, whatever the arrival order.
 */
async function projectEvents(
  tx: TransactionSql,
  groups: ResourceEvents,
  rows: LockedRows,
): Promise<ProjectionStats> {
  const inserts: RowWrite[] = [];
  const updates: RowWrite[] = [];
  const refold: ResourceKey[] = [];
  let events = 0;
  for (const [key, ordered] of groups) {
    events += ordered.length;
    const first = ordered[0] as ProjectedEvent;
    const last = ordered[ordered.length - 1] as ProjectedEvent;
    const row = rows.get(key);
    if (row && comparePositions(positionOf(first), row.state.last) <= 0) {
      refold.push(keyOf(first));
      continue;
    }
    // No row means no stored history before these events: rows are never removed, and one discarded
    // by hand comes back only through a rebuild, which refolds the full history.
    let state: ResourceState | null = row?.state ?? null;
    for (const e of ordered) state = step(state, e);
    (row ? updates : inserts).push({
      ...keyOf(first),
      platform: last.platform,
      state: state as ResourceState,
      eventCount: (row?.eventCount ?? 0) + ordered.length,
      ...(row ? { ctid: row.ctid, held: row } : {}),
    });
  }
  // A refolded resource has a row: only a row's position can come after a new event's.
  for (const write of refold.length > 0 ? await customPlanned(tx, () => refoldedRows(tx, refold)) : []) {
    const held = rows.get(resourceKeyString(write)) as RowState;
    updates.push({ ...write, ctid: held.ctid, held });
  }
  await insertAndUpdateRows(tx, { inserts, updates });
  return { resources: groups.size, refolded: refold.length, events, presumedFound: 0 };
}

async function refoldedRows(tx: TransactionSql, keys: readonly ResourceKey[]): Promise<RowWrite[]> {
  const histories = await readHistories(tx, keys);
  const writes: RowWrite[] = [];
  for (const key of keys) {
    const history = histories.get(resourceKeyString(key));
    if (!history) continue;
    const { state } = foldHistory(history.events);
    if (state) writes.push({ ...key, platform: history.platform, state, eventCount: history.events.length });
  }
  return writes;
}

/** Refolds the given resources from their full histories, under their locks (the rebuild path). */
export async function refoldResources(
  tx: TransactionSql,
  keys: readonly ResourceKey[],
): Promise<ProjectionStats> {
  await lockResources(tx, keys.map(resourceKeyString));
  const writes = await refoldedRows(tx, keys);
  await writeRows(tx, writes);
  return {
    resources: writes.length,
    refolded: writes.length,
    presumedFound: 0,
    events: writes.reduce((n, w) => n + w.eventCount, 0),
  };
}
