import type { Period } from "../../foundation/time/period.ts";
import type { CanonicalEvent } from "../events/event.ts";
import { clipIntervals } from "../history/clip.ts";
import type { HistoryEvent } from "../history/event-order.ts";
import { foldHistory } from "../history/fold.ts";
import type { RatedInterval } from "../pricing/rate-resource.ts";
import { splitAt } from "../pricing/tariff.ts";

/** What identifies a resource across the month: its events' (cloud, platform, resource_type, resource_id). */
export type ResourceKey = Pick<CanonicalEvent, "cloud" | "platform" | "resource_type" | "resource_id">;

/**
 * A resource's history metered into the period: its spans inside the month, closed at the month's end.
 * A candidate of the run when it has at least one.
 */
export interface MeteredResource extends ResourceKey {
  intervals: RatedInterval[];
  /** Its history's first event is not a create (warning `history_starts_without_create`). */
  starts_without_create: boolean;
}

/**
 * Meters one resource (pure): its whole history folded with `lib/billing/history` (the one fold), split at
 * every change of state, size or owner, clipped to the period, and an interval still open at the
 * month's end closed there; then split at each instant of `changes` inside it (the pricing model's price
 * changes), so that counters are read per price period. A resource whose history does not touch the period (no interval and no
 * event inside it) is null; one that touches it with no interval (say, only its delete) comes back with
 * no intervals, so that a history without its create is still reported once (docs/engine.md#warnings).
 */
export function meterResource(
  key: ResourceKey,
  events: readonly HistoryEvent[],
  period: Period,
  changes: readonly string[] = [],
): MeteredResource | null {
  const history = foldHistory(events);
  const clipped = clipIntervals(history.intervals, period.from, period.to).map(
    (i): RatedInterval => ({
      from: i.from,
      to: i.to ?? period.to,
      state: i.state,
      project_id: i.project_id,
      size: i.size,
    }),
  );
  const intervals = splitAt(clipped, changes);
  if (intervals.length === 0 && !events.some((e) => e.timestamp >= period.from && e.timestamp < period.to)) {
    return null;
  }
  return { ...key, intervals, starts_without_create: history.starts_without_create };
}

/** One row of the month's read: an event with the key of its resource. */
export type MonthEvent = ResourceKey & HistoryEvent;

function sameResource(a: ResourceKey, b: ResourceKey): boolean {
  return (
    a.resource_id === b.resource_id &&
    a.resource_type === b.resource_type &&
    a.cloud === b.cloud &&
    a.platform === b.platform
  );
}

/**
 * Meters a month read in resource order (events of one resource adjacent, in any order among
 * themselves), holding one resource's history at a time: memory follows the longest history, not the
 * month. Yields each candidate and counts every resource read.
 */
export async function* meterMonth(
  rows: AsyncIterable<readonly MonthEvent[]>,
  period: Period,
  counts: { resources: number } = { resources: 0 },
  changes: readonly string[] = [],
): AsyncGenerator<MeteredResource> {
  let key: ResourceKey | null = null;
  let history: HistoryEvent[] = [];
  const flush = (): MeteredResource | null => {
    if (key === null) return null;
    counts.resources += 1;
    return meterResource(key, history, period, changes);
  };
  for await (const batch of rows) {
    for (const row of batch) {
      if (key === null || !sameResource(key, row)) {
        const metered = flush();
        if (metered !== null) yield metered;
        key = {
          cloud: row.cloud,
          platform: row.platform,
          resource_type: row.resource_type,
          resource_id: row.resource_id,
        };
        history = [];
      }
      // The row is the event: the fold reads only its history members.
      history.push(row);
    }
  }
  const last = flush();
  if (last !== null) yield last;
}
