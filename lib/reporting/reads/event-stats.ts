import type { Sql } from "postgres";
import { ResultTooLargeError } from "../../errors/svc-error.ts";
import { instantFromMs, msOf } from "../../time/instant.ts";
import { pgInstant } from "../database.ts";
import { inScope } from "./project-scope.ts";
import { maxStatsItems, rollUp } from "./stats-grouping.ts";

export const eventDimensions = ["cloud", "event_type", "source"] as const;
export type EventDimension = (typeof eventDimensions)[number];
export type StatsInterval = "1h" | "1d";

/** The window's end may lie at most one year and one month after its start (spec 1, Limits). */
export function windowTooLong(from: string, to: string): boolean {
  const limit = new Date(msOf(from));
  limit.setUTCFullYear(limit.getUTCFullYear() + 1);
  limit.setUTCMonth(limit.getUTCMonth() + 1);
  return msOf(to) > limit.getTime();
}

/**
 * Stored events per UTC-aligned bucket (hour or day, not aligned on `from`) and grouped dimensions,
 * counting only events inside [from, to); empty buckets are omitted; ordered by (bucket, cloud,
 * event_type, source). A window longer than a year and a month is refused before counting; the size
 * bound is checked on the finest grouping (bucket and all three dimensions), so omitting `source` does
 * not lower it.
 */
export async function eventStats(
  sql: Sql,
  options: {
    groupBy: readonly EventDimension[];
    from: string;
    to: string;
    interval: StatsInterval;
    scope: readonly string[] | null;
  },
) {
  const from = instantFromMs(msOf(options.from));
  const to = instantFromMs(msOf(options.to));
  if (windowTooLong(from, to)) {
    throw new ResultTooLargeError("the window is longer than one year and one month");
  }
  if (from >= to) return { items: [] };
  const unit = options.interval === "1h" ? "hour" : "day";
  const rows = await sql<
    { bucket: string; cloud: string; event_type: string; source: string; count: number }[]
  >`
    select date_trunc(${unit}, timestamp at time zone 'UTC')::text as bucket, cloud, event_type, source,
      count(*)::int as count
    from events
    where timestamp >= ${from}::timestamptz and timestamp < ${to}::timestamptz
      ${inScope(sql, options.scope, sql`cloud, project_id`)}
    group by 1, cloud, event_type, source
    limit ${maxStatsItems + 1}`;
  if (rows.length > maxStatsItems) {
    throw new ResultTooLargeError(
      `the counts hold more than ${maxStatsItems} (bucket, cloud, event_type, source) items; shorten the window or use 1d`,
    );
  }
  const bucketed = rows.map((r) => ({ ...r, bucket: pgInstant(`${r.bucket}+00`) }));
  return { items: rollUp(bucketed, ["bucket", ...options.groupBy], ["bucket", ...eventDimensions]) };
}
