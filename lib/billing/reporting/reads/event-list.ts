import type { Sql } from "postgres";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { CanonicalEvent, EventSource } from "../../events/event.ts";
import { pgInstant } from "../database.ts";
import { equalFilters } from "./equal-filters.ts";
import { decodeCursor, pageOf } from "./page-cursor.ts";
import { checkProjectFilter, inScope } from "./project-scope.ts";

/** A stored event as the history serves it: the canonical members and when it was received. */
export type StoredEvent = CanonicalEvent & { received_at: string };

export interface EventFilter {
  cloud?: string | undefined;
  platform?: string | undefined;
  project_id?: string | undefined;
  resource_type?: string | undefined;
  event_type?: string | undefined;
  source?: EventSource | undefined;
  from?: string | undefined;
  to?: string | undefined;
  scope: readonly string[] | null;
  limit: number;
  cursor?: string | undefined;
}

/** A stored event as `eventColumns` selects it. */
export type EventRow = Omit<StoredEvent, "payload"> & { payload: JsonObject };

/** The stored event's columns as a fragment (plain SQL, so the statement stays preparable). */
export const eventColumns = (
  sql: Sql,
) => sql`event_id, timestamp::text, event_type, platform, cloud, resource_type,
  resource_id, project_id, source, payload, received_at::text`;

export function storedEventOf(row: EventRow): StoredEvent {
  return { ...row, timestamp: pgInstant(row.timestamp), received_at: pgInstant(row.received_at) };
}

/**
 * A page of the history in (timestamp, event_id) order. Event-scoped: a project token reads every
 * event whose (cloud, project_id) is one of its projects, also those a resource carried before a
 * transfer away, and none of the history a transfer brought in.
 */
export async function listEvents(sql: Sql, filter: EventFilter) {
  await checkProjectFilter(sql, filter.scope, filter);
  const after = filter.cursor === undefined ? null : decodeCursor(filter.cursor, "ts");
  const rows = await sql<EventRow[]>`
    select ${eventColumns(sql)} from events
    where true
      ${equalFilters(sql, filter, ["cloud", "platform", "project_id", "resource_type", "event_type", "source"])}
      ${filter.from === undefined ? sql`` : sql`and timestamp >= ${filter.from}::timestamptz`}
      ${filter.to === undefined ? sql`` : sql`and timestamp < ${filter.to}::timestamptz`}
      ${inScope(sql, filter.scope, sql`cloud, project_id`)}
      ${after === null ? sql`` : sql`and (timestamp, event_id) > (${after[0] ?? ""}::timestamptz, ${after[1] ?? ""})`}
    order by events.timestamp, events.event_id
    limit ${filter.limit + 1}`;
  return pageOf(rows, filter.limit, storedEventOf, (r) => [pgInstant(r.timestamp), r.event_id]);
}
