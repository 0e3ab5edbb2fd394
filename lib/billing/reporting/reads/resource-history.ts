import type { Sql } from "postgres";
import { HistoryTooLongError, NotFoundError } from "../../../foundation/errors/svc-error.ts";
import { foldHistory, type Interval } from "../../history/fold.ts";
import { eventColumns, type StoredEvent, storedEventOf } from "./event-list.ts";
import { inScope } from "./project-scope.ts";
import { maxHistoryEvents } from "./project-summary.ts";

export interface ResourceHistory {
  cloud: string;
  resource_type: string;
  resource_id: string;
  events: StoredEvent[];
  intervals: Interval[];
}

/**
 * One resource's stored events in history order with the intervals the one fold makes of them. Event
 * scoped, like the event list: a project token reads the events naming its projects and the intervals
 * they held, and a resource it sees no event of is 404. Longer than `maxHistoryEvents` is
 * `history_too_long`, decided on the whole history before any is read.
 */
export async function resourceHistory(
  sql: Sql,
  key: { cloud: string; resource_type: string; resource_id: string },
  scope: readonly string[] | null,
): Promise<ResourceHistory> {
  const rows = await sql<Parameters<typeof storedEventOf>[0][]>`
    select ${eventColumns(sql)} from events
    where cloud = ${key.cloud} and resource_type = ${key.resource_type} and resource_id = ${key.resource_id}
    order by events.timestamp, events.event_id
    limit ${maxHistoryEvents + 1}`;
  if (rows.length > maxHistoryEvents) {
    throw new HistoryTooLongError(`the resource has more than ${maxHistoryEvents} events`);
  }
  const events = rows.map(storedEventOf);
  const intervals = foldHistory(events).intervals;
  if (scope === null) {
    if (events.length === 0) throw new NotFoundError("no events of this resource");
    return { ...key, events, intervals };
  }
  const owned = await sql<{ external_id: string }[]>`
    select external_id from projects where cloud = ${key.cloud} ${inScope(sql, scope, sql`cloud, external_id`)}`;
  const mine = new Set(owned.map((p) => p.external_id));
  const visible = events.filter((e) => mine.has(e.project_id));
  if (visible.length === 0) throw new NotFoundError("no events of this resource");
  return { ...key, events: visible, intervals: intervals.filter((i) => mine.has(i.project_id)) };
}
