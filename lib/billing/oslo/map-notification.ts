import type { CanonicalEvent, PayloadEnvelope } from "../events/event.ts";
import { derivedEventId } from "../events/event-id.ts";
import { mapCinder } from "./cinder.ts";
import { mapCinderBackup, mapCinderSnapshot } from "./cinder-copies.ts";
import { mapGlance } from "./glance.ts";
import type { ServiceMapper } from "./mapped-change.ts";
import { mapNeutron } from "./neutron.ts";
import type { OsloNotification } from "./notification.ts";
import { mapNova } from "./nova.ts";
import { mapNovaVersioned } from "./nova-versioned.ts";
import { mapOctavia } from "./octavia.ts";
import { osloInstant } from "./timestamp.ts";

/** Where mapped events are booked: the platform and the cloud the collector (or simulator) serves. */
export interface MappingTarget {
  platform: string;
  cloud: string;
}

export type MapResult =
  | {
      kind: "consumed";
      /** The notification's type, as sent (the counters' label). */
      event_type: string;
      event: CanonicalEvent;
      /**
       * The transition the event books, where its service may state it twice (`TransitionTwins`):
       * resource, event type and request. Null when the notification names no request.
       */
      transition: string | null;
    }
  | { kind: "skipped"; event_type: string; reason: string };

/** Event type prefixes to the service that emits them; versioned nova types start with `instance.`. */
const mappers: ReadonlyArray<readonly [string, ServiceMapper]> = [
  ["compute.instance.", mapNova],
  ["instance.", mapNovaVersioned],
  ["volume.", mapCinder],
  ["snapshot.", mapCinderSnapshot],
  ["backup.", mapCinderBackup],
  ["floatingip.", mapNeutron],
  ["image.", mapGlance],
  ["octavia.loadbalancer.", mapOctavia],
];

/**
 * The notification to canonical event mapping (docs/oslo-mapping.md), shared by the collector and the
 * simulator's `events.jsonl`. It never throws: a mapped type whose payload lacks members still yields an
 * event, which ingest refuses and dead-letters, so the refusal is visible where operators look.
 * The event keeps the notification's message id (the provider's own id, so a redelivery or a
 * duplicate publish deduplicates at ingest) and its type, except a versioned nova notification, booked
 * under its legacy twin's type (decision 284).
 */
export function mapNotification(notification: OsloNotification, target: MappingTarget): MapResult {
  const sentType = notification.event_type;
  const mapper = mappers.find(([prefix]) => sentType.startsWith(prefix))?.[1];
  if (mapper === undefined)
    return { kind: "skipped", event_type: sentType, reason: "no mapping for this type" };
  const change = mapper(sentType, notification.payload, notification.raw);
  if (typeof change === "string") return { kind: "skipped", event_type: sentType, reason: change };
  const eventType = change.event_type ?? sentType;
  const timestamp = osloInstant(notification.timestamp) ?? notification.timestamp;
  const payload: PayloadEnvelope = {};
  if (change.state !== undefined) payload.state = change.state;
  if (change.size !== undefined) payload.size = change.size;
  payload.provider = { publisher_id: notification.publisher_id, ...change.provider };
  const event: CanonicalEvent = {
    event_id:
      notification.message_id ??
      derivedEventId({
        platform: target.platform,
        cloud: target.cloud,
        resource_id: change.resource_id,
        event_type: sentType,
        timestamp: osloInstant(notification.timestamp) ?? new Date(0).toISOString(),
      }),
    timestamp,
    event_type: eventType,
    platform: target.platform,
    cloud: target.cloud,
    resource_type: change.resource_type,
    resource_id: change.resource_id,
    project_id: change.project_id,
    source: "collector",
    payload,
  };
  const request = change.request_id ?? null;
  const transition =
    request === null || request === ""
      ? null
      : `${change.resource_type}/${change.resource_id}\u0000${eventType}\u0000${request}`;
  return { kind: "consumed", event_type: sentType, event, transition };
}
