import type { TransactionSql } from "postgres";
import type { CanonicalEvent, JsonObject, PayloadEnvelope } from "../../events/event.ts";
import {
  comparePositions,
  type HistoryEvent,
  inHistoryOrder,
  positionOf,
} from "../../history/event-order.ts";
import { foldHistory, type ResourceState, step } from "../../history/fold.ts";
import { jsonText } from "../../json/canonical-json.ts";
import { pgInstant } from "../database.ts";
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
}

/**
 * Takes the transaction-scoped advisory lock of every resource key, in one statement and in hash
 * order, so two transactions touching overlapping resources queue instead of deadlocking, and a
 * rebuild waits for an ingest holding a key. Seeded apart from other advisory users of the database.
 */
export async function lockResources(tx: TransactionSql, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await tx`
    select count(pg_advisory_xact_lock(h)) from (
      select distinct hashtextextended(k, 731) as h from json_array_elements_text(${JSON.stringify(keys)}::json) as k
      order by h
    ) as locks`;
}

interface RowState {
  platform: string;
  state: ResourceState;
  eventCount: number;
}

/** A `current_resources` row as postgres.js reads it. */
export type ProjectionRow = {
  cloud: string;
  resource_type: string;
  resource_id: string;
  platform: string;
  project_id: string;
  state: string | null;
  size: JsonObject | null;
  created_at: string | null;
  deleted_at: string | null;
  last_event_timestamp: string;
  last_event_rank: number;
  last_event_id: string;
  event_count: number;
};

/** The folded state a stored projection row holds. */
export function rowStateOf(r: ProjectionRow): ResourceState {
  return {
    state: r.state,
    size: r.size,
    project_id: r.project_id,
    created_at: r.created_at === null ? null : pgInstant(r.created_at),
    deleted_at: r.deleted_at === null ? null : pgInstant(r.deleted_at),
    last: {
      timestamp: pgInstant(r.last_event_timestamp),
      rank: r.last_event_rank,
      event_id: r.last_event_id,
    },
  };
}

async function readRows(tx: TransactionSql, keys: readonly ResourceKey[]): Promise<Map<string, RowState>> {
  const rows = await tx<ProjectionRow[]>`
    select r.* from current_resources r
    join json_to_recordset(${JSON.stringify(keys)}::json) as k(cloud text, resource_type text, resource_id text)
      using (cloud, resource_type, resource_id)`;
  const out = new Map<string, RowState>();
  for (const r of rows) {
    out.set(resourceKeyString(r), {
      platform: r.platform,
      eventCount: r.event_count,
      state: rowStateOf(r),
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
}

async function writeRows(tx: TransactionSql, rows: readonly RowWrite[]): Promise<void> {
  if (rows.length === 0) return;
  const records: JsonObject[] = rows.map((r) => ({
    cloud: r.cloud,
    resource_type: r.resource_type,
    resource_id: r.resource_id,
    platform: r.platform,
    project_id: r.state.project_id,
    state: r.state.state,
    size: r.state.size,
    created_at: r.state.created_at,
    deleted_at: r.state.deleted_at,
    last_event_timestamp: r.state.last.timestamp,
    last_event_rank: r.state.last.rank,
    last_event_id: r.state.last.event_id,
    event_count: r.eventCount,
  }));
  await tx`
    insert into current_resources (cloud, resource_type, resource_id, platform, project_id, state, size,
      created_at, deleted_at, last_event_timestamp, last_event_rank, last_event_id, event_count, updated_at)
    select cloud, resource_type, resource_id, platform, project_id, state, size, created_at, deleted_at,
      last_event_timestamp, last_event_rank, last_event_id, event_count, now()
    from json_to_recordset(${jsonText(records)}::json) as r(cloud text, resource_type text,
      resource_id text, platform text, project_id text, state text, size jsonb, created_at timestamptz,
      deleted_at timestamptz, last_event_timestamp timestamptz, last_event_rank int, last_event_id text,
      event_count int)
    on conflict (cloud, resource_type, resource_id) do update set
      platform = excluded.platform, project_id = excluded.project_id, state = excluded.state,
      size = excluded.size, created_at = excluded.created_at, deleted_at = excluded.deleted_at,
      last_event_timestamp = excluded.last_event_timestamp, last_event_rank = excluded.last_event_rank,
      last_event_id = excluded.last_event_id, event_count = excluded.event_count, updated_at = now()`;
}

function groupByResource(events: readonly ProjectedEvent[]): Map<string, ProjectedEvent[]> {
  const groups = new Map<string, ProjectedEvent[]>();
  for (const e of events) {
    const key = resourceKeyString(e);
    const group = groups.get(key);
    if (group) group.push(e);
    else groups.set(key, [e]);
  }
  return groups;
}

function keyOf(e: ResourceKey): ResourceKey {
  return { cloud: e.cloud, resource_type: e.resource_type, resource_id: e.resource_id };
}

/**
 * Folds newly stored events into the projection, inside the transaction that stored them (so the row
 * and the history commit together). Under each resource's lock: a resource whose new events all come
 * after the position its row last folded steps on from the row (or from nothing, for a new resource);
 * any other (an older arrival) is refolded from its full stored history, which already holds the new events. Either way the row equals
 * the fold of the history in order, whatever the arrival order.
 */
export async function projectEvents(
  tx: TransactionSql,
  events: readonly ProjectedEvent[],
): Promise<ProjectionStats> {
  const groups = groupByResource(events);
  if (groups.size === 0) return { resources: 0, refolded: 0, events: 0 };
  const keys = [...groups.values()].map((g) => keyOf(g[0] as ProjectedEvent));
  await lockResources(tx, [...groups.keys()]);
  const rows = await readRows(tx, keys);

  const writes: RowWrite[] = [];
  const refold: ResourceKey[] = [];
  for (const [key, group] of groups) {
    const ordered = inHistoryOrder(group);
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
    writes.push({
      ...keyOf(first),
      platform: last.platform,
      state: state as ResourceState,
      eventCount: (row?.eventCount ?? 0) + ordered.length,
    });
  }
  writes.push(...(await refoldedRows(tx, refold)));
  await writeRows(tx, writes);
  return { resources: groups.size, refolded: refold.length, events: events.length };
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
    events: writes.reduce((n, w) => n + w.eventCount, 0),
  };
}
