import type { CanonicalEvent, PayloadEnvelope } from "../events/event.ts";
import { derivedEventId } from "../events/event-id.ts";
import { mapCinder } from "./cinder.ts";
import { mapGlance } from "./glance.ts";
import type { ServiceMapper } from "./mapped-change.ts";
import { mapNeutron } from "./neutron.ts";
import type { OsloNotification } from "./notification.ts";
import { mapNova } from "./nova.ts";
import { mapOctavia } from "./octavia.ts";
import { osloInstant } from "./timestamp.ts";

/** Where mapped events are booked: the platform and the cloud the collector (or simulator) serves. */
export interface MappingTarget {
  platform: string;
  cloud: string;
}

export type MapResult =
  | { kind: "consumed"; event_type: string; event: CanonicalEvent }
  | { kind: "skipped"; event_type: string; reason: string };

/** Event type prefixes to the service that emits them; versioned nova types start with `instance.`. */
const mappers: ReadonlyArray<readonly [string, ServiceMapper]> = [
  ["compute.instance.", mapNova],
  ["instance.", mapNova],
  ["volume.", mapCinder],
  ["floatingip.", mapNeutron],
  ["image.", mapGlance],
  ["octavia.loadbalancer.", mapOctavia],
];

/**
 * The notification to canonical event mapping (docs/oslo-mapping.md), shared by the collector and the
 * simulator's `events.jsonl`. It never throws: a mapped type whose payload lacks members still yields an
 * event, which ingest refuses and dead-letters, so the refusal is visible where operators look.
 * The event keeps the notification's type and its message id (the provider's own id, so a redelivery or
 * a duplicate publish deduplicates at ingest).
 */
export function mapNotification(notification: OsloNotification, target: MappingTarget): MapResult {
  const eventType = notification.event_type;
  const mapper = mappers.find(([prefix]) => eventType.startsWith(prefix))?.[1];
  if (mapper === undefined)
    return { kind: "skipped", event_type: eventType, reason: "no mapping for this type" };
  const change = mapper(eventType, notification.payload, notification.raw);
  if (typeof change === "string") return { kind: "skipped", event_type: eventType, reason: change };
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
        event_type: eventType,
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
  return { kind: "consumed", event_type: eventType, event };
}
