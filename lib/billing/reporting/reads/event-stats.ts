import type { Sql } from "postgres";
import { ResultTooLargeError } from "../../../foundation/errors/svc-error.ts";
import { instantFromMs, msOf } from "../../../foundation/time/instant.ts";
import { pgInstant } from "../database.ts";
import { inScope } from "./project-scope.ts";
import { maxStatsItems, rollUp } from "./stats-grouping.ts";

export const eventDimensions = ["cloud", "event_type", "source"] as const;
type EventDimension = (typeof eventDimensions)[number];
type StatsInterval = "1h" | "1d";

/** The window's end may lie at most one year and one month after its start (docs/reporting-api.md#limits). */
function windowTooLong(from: string, to: string): boolean {
  const limit = new Date(msOf(from));
  limit.setUTCFullYear(limit.getUTCFullYear() + 1);
  limit.setUTCMonth(limit.getUTCMonth() + 1);
  return msOf(to) > limit.getTime();
}

/**
 * Stored events per UTC-aligned bucket (hour or day, not aligned on `from`) and grouped dimensions,
 * counting only events inside [from, to); empty buckets are omitted; ordered by (bucket, cloud,
 * event_type, source). `result_too_large` is decided before counting the window (decision 141): a
 * window longer than a year and a month is refused before any query, and the size bound on the finest
 * grouping (bucket and all three dimensions, so omitting `source` does not lower it) is checked as the
 * buckets are counted one after another in time order, so the database stops at the first item past the
 * bound instead of counting the whole window and then refusing it.
 */
export async function eventStats(sql: Sql, options: EventStatsOptions) {
  const from = instantFromMs(msOf(options.from));
  const to = instantFromMs(msOf(options.to));
  if (windowTooLong(from, to)) {
    throw new ResultTooLargeError("the window is longer than one year and one month");
  }
  if (from >= to) return { items: [] };
  const maxItems = options.maxItems ?? maxStatsItems;
  const rows = await eventStatsQuery(sql, { ...options, from, to, maxItems });
  if (rows.length > maxItems) {
    throw new ResultTooLargeError(
      `the counts hold more than ${maxItems} (bucket, cloud, event_type, source) items; shorten the window or use 1d`,
    );
  }
  const bucketed = rows.map((r) => ({ ...r, bucket: pgInstant(`${r.bucket}+00`) }));
  return { items: rollUp(bucketed, ["bucket", ...options.groupBy], ["bucket", ...eventDimensions]) };
}

interface EventStatsOptions {
  groupBy: readonly EventDimension[];
  from: string;
  to: string;
  interval: StatsInterval;
  scope: readonly string[] | null;
  /** The size bound; `maxStatsItems` unless a test needs a small one. */
  maxItems?: number;
}

/**
 * The counting statement: a nested loop over the window's buckets in time order (UTC, each clipped to
 * [from, to)), each bucket one index range of `events` grouped by the three dimensions, with at most
 * `maxItems + 1` items. The limit ends the loop, so answering "too large" costs the buckets before the
 * bound, not the window. Exported so a test can read its plan.
 */
export function eventStatsQuery(
  sql: Sql,
  options: Omit<EventStatsOptions, "groupBy"> & { maxItems: number },
) {
  const unit = options.interval === "1h" ? "hour" : "day";
  const step = options.interval === "1h" ? "1 hour" : "1 day";
  const { from, to } = options;
  // A bucket starting at or after `to` holds nothing: the series stops one microsecond before it.
  return sql<{ bucket: string; cloud: string; event_type: string; source: string; count: number }[]>`
    select b.start::text as bucket, g.cloud, g.event_type, g.source, g.count
    from generate_series(
      date_trunc(${unit}, ${from}::timestamptz at time zone 'UTC'),
      ${to}::timestamptz at time zone 'UTC' - interval '1 microsecond',
      ${step}::interval
    ) as b(start)
    cross join lateral (
      select cloud, event_type, source, count(*)::int as count
      from events
      where timestamp >= greatest(b.start at time zone 'UTC', ${from}::timestamptz)
        and timestamp < least((b.start + ${step}::interval) at time zone 'UTC', ${to}::timestamptz)
        ${inScope(sql, options.scope, sql`cloud, project_id`)}
      group by cloud, event_type, source
    ) as g
    limit ${options.maxItems + 1}`;
}
