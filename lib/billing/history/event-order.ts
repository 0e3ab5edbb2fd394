import { categoryOf, categoryRank } from "../events/category.ts";
import type { CanonicalEvent } from "../events/event.ts";

/** The members of an event that the fold reads. */
export type HistoryEvent = Pick<
  CanonicalEvent,
  "event_id" | "timestamp" | "event_type" | "project_id" | "payload"
>;

/**
 * Where an event stands in its resource's history: (timestamp, category rank, event_id). A total
 * order that ignores arrival, so every arrival order folds to the same result; at one instant a create
 * goes first and a delete last, which is how the platform means simultaneous facts.
 */
export interface EventPosition {
  timestamp: string;
  rank: number;
  event_id: string;
}

export function positionOf(
  event: Pick<HistoryEvent, "timestamp" | "event_type" | "event_id">,
): EventPosition {
  return {
    timestamp: event.timestamp,
    rank: categoryRank(categoryOf(event.event_type)),
    event_id: event.event_id,
  };
}

export function comparePositions(a: EventPosition, b: EventPosition): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? -1 : 1;
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.event_id !== b.event_id) return a.event_id < b.event_id ? -1 : 1;
  return 0;
}

/**
 * A sorted copy; the input is left alone. Each event's position is computed once, not at every
 * comparison: the engine sorts every history of a month (decision 411).
 */
export function inHistoryOrder<E extends HistoryEvent>(events: readonly E[]): E[] {
  return positionedInOrder(events).map(({ event }) => event);
}

/**
 * The events in history order, each with its position (the fold keeps it as `last`). A history read
 * in timestamp order is nearly always in order already: that is checked first, and only an unordered
 * one is sorted (the sort is stable, so either way gives the same order).
 */
export function positionedInOrder<E extends HistoryEvent>(
  events: readonly E[],
): { event: E; position: EventPosition }[] {
  const positioned = events.map((event) => ({ event, position: positionOf(event) }));
  for (let i = 1; i < positioned.length; i++) {
    if (
      comparePositions((positioned[i - 1] as Positioned).position, (positioned[i] as Positioned).position) > 0
    )
      return positioned.sort((a, b) => comparePositions(a.position, b.position));
  }
  return positioned;
}

type Positioned = { position: EventPosition };
