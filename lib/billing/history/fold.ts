import { jsonEqual } from "../../foundation/json/canonical-json.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { categoryOf } from "../events/category.ts";
import { type EventPosition, type HistoryEvent, positionedInOrder, positionOf } from "./event-order.ts";

export const deletedState = "deleted";

/** What one resource is after a prefix of its history: the projection row's folded members. */
export interface ResourceState {
  state: string | null;
  size: JsonObject | null;
  project_id: string;
  created_at: string | null;
  deleted_at: string | null;
  /** Position of the last event folded, so an older arrival is recognised and refolds. */
  last: EventPosition;
}

/** A half-open span [from, to) during which state, size and owner did not change; `to` null is open. */
export interface Interval {
  from: string;
  to: string | null;
  state: string | null;
  project_id: string;
  size: JsonObject | null;
}

export interface History {
  state: ResourceState | null;
  intervals: Interval[];
  /** The first event is not a create (engine warning `history_starts_without_create`). */
  starts_without_create: boolean;
}

function payloadState(event: HistoryEvent, fallback: string | null): string | null {
  return Object.hasOwn(event.payload, "state") ? (event.payload.state ?? null) : fallback;
}

/**
 * One step of the fold (States table of the reporting spec). The caller guarantees `event` is not
 * older than `current.last`; the projection refolds the whole history when it is.
 * - create, from no row or any state: state and size from the payload, owner from the event,
 *   `created_at` set, a deleted resource comes back.
 * - update: on a live resource, state and owner as the event carries them, size only when present;
 *   with no row yet (a history that starts without its create) it opens the row; on a deleted
 *   resource it changes nothing.
 * - delete: `deleted` whatever the payload says, `deleted_at` at the first delete; the row stays.
 */
export function step(
  current: ResourceState | null,
  event: HistoryEvent,
  last: EventPosition = positionOf(event),
): ResourceState {
  const size = event.payload.size ?? null;
  switch (categoryOf(event.event_type)) {
    case "create":
      return {
        state: payloadState(event, null),
        size: size ?? current?.size ?? null,
        project_id: event.project_id,
        created_at: event.timestamp,
        deleted_at: null,
        last,
      };
    case "delete":
      return {
        state: deletedState,
        size: current?.size ?? size,
        project_id: current?.project_id ?? event.project_id,
        created_at: current?.created_at ?? null,
        deleted_at: current?.deleted_at ?? event.timestamp,
        last,
      };
    case "update":
      if (current === null) {
        return {
          state: payloadState(event, null),
          size,
          project_id: event.project_id,
          created_at: null,
          deleted_at: null,
          last,
        };
      }
      if (current.state === deletedState) return { ...current, last };
      return {
        ...current,
        state: payloadState(event, current.state),
        size: size ?? current.size,
        project_id: event.project_id,
        last,
      };
  }
}

function sameSpan(a: Interval, b: ResourceState): boolean {
  return a.state === b.state && a.project_id === b.project_id && jsonEqual(a.size, b.size);
}

/**
 * Folds a whole history, in any arrival order, into the final state and the intervals of a live
 * resource. Any change of state, size or owner closes the open interval and opens another; a delete
 * closes it. Spans of zero length (two facts at one instant) are dropped.
 */
export function foldHistory(events: readonly HistoryEvent[]): History {
  const ordered = positionedInOrder(events);
  const intervals: Interval[] = [];
  let state: ResourceState | null = null;
  let open: Interval | null = null;
  const close = (at: string) => {
    if (open === null) return;
    if (open.from < at) intervals.push({ ...open, to: at });
    open = null;
  };
  for (const { event, position } of ordered) {
    state = step(state, event, position);
    if (state.state === deletedState) {
      close(event.timestamp);
    } else if (open === null || !sameSpan(open, state)) {
      close(event.timestamp);
      open = {
        from: event.timestamp,
        to: null,
        state: state.state,
        project_id: state.project_id,
        size: state.size,
      };
    }
  }
  if (open !== null) intervals.push(open);
  const first = ordered[0]?.event;
  return {
    state,
    intervals,
    starts_without_create: first !== undefined && categoryOf(first.event_type) !== "create",
  };
}
