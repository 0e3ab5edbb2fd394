import { msOf } from "../../../foundation/time/instant.ts";
import { clipIntervals } from "../../history/clip.ts";
import type { HistoryEvent } from "../../history/event-order.ts";
import { foldHistory } from "../../history/fold.ts";

/** Time a project held live resources of one type inside a window, in milliseconds, per state. */
interface HeldTime {
  ms: number;
  byState: Map<string, number>;
}

/**
 * What the summary's minutes are made of: each resource's history folded with the one fold
 * (lib/billing/history), the intervals the project held (a transfer splits them, so each owner counts its own
 * span), clipped to [from, to). The caller passes `to` already capped at the request instant, so an
 * open interval counts up to now and never into the future. A state of null counts under "".
 */
export function heldTime(
  resources: Iterable<{ resource_type: string; events: readonly HistoryEvent[] }>,
  owner: string,
  window: { from: string; to: string },
): Map<string, HeldTime> {
  const byType = new Map<string, HeldTime>();
  for (const resource of resources) {
    const held = foldHistory(resource.events).intervals.filter((i) => i.project_id === owner);
    for (const interval of clipIntervals(held, window.from, window.to)) {
      const ms = msOf(interval.to ?? window.to) - msOf(interval.from);
      const entry = byType.get(resource.resource_type) ?? { ms: 0, byState: new Map<string, number>() };
      entry.ms += ms;
      const state = interval.state ?? "";
      entry.byState.set(state, (entry.byState.get(state) ?? 0) + ms);
      byType.set(resource.resource_type, entry);
    }
  }
  return byType;
}
