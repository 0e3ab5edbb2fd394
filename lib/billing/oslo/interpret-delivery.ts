import type { CanonicalEvent } from "../events/event.ts";
import { bytesBeyond, type EnvelopeResult, parseEnvelope } from "./envelope.ts";
import { type MappingTarget, mapNotification } from "./map-notification.ts";
import { maxEventBytes } from "./notification.ts";
import type { TransitionTwins } from "./transition-twins.ts";

/**
 * The collector's three counts for one delivery (docs/oslo-mapping.md#oslo-notifications-to-canonical-events): `unparseable` (no notification could
 * be read), `skipped` (a notification with no mapped event, a twin of a transition booked already, or
 * a mapped event past 64 KiB), `consumed`. `event_type` labels the counters (the type as sent); an
 * unparseable body may not name one. A consumed outcome carries the event's JSON too: it was serialized
 * to check its size, and the outbox stores exactly that text.
 */
export type DeliveryOutcome =
  | { outcome: "unparseable"; event_type: string | null; reason: string }
  | { outcome: "skipped"; event_type: string; reason: string }
  | { outcome: "consumed"; event_type: string; event: CanonicalEvent; event_json: string };

/** Why a twin is skipped, as the debug line and the tests name it. */
export const twinReason = "the twin of a transition booked from another notification (nova's other format)";

/**
 * One delivery as the collector reads it. `twins` is the memory of the transitions booked so far, for a
 * reader of a stream (the collector, a month's lines); without it each body is read on its own.
 */
export function interpretDelivery(
  body: string | Uint8Array,
  target: MappingTarget,
  twins?: TransitionTwins,
): DeliveryOutcome {
  return interpretEnvelope(parseEnvelope(body), target, twins);
}

/**
 * `interpretDelivery` of an inner message the caller holds as an object (`readMessage`): the simulator
 * maps what it renders this way, without reading its own JSON back (decision 247).
 */
export function interpretEnvelope(
  parsed: EnvelopeResult,
  target: MappingTarget,
  twins?: TransitionTwins,
): DeliveryOutcome {
  if (parsed.kind === "unparseable") {
    return { outcome: "unparseable", event_type: parsed.event_type, reason: parsed.reason };
  }
  const mapped = mapNotification(parsed.notification, target);
  if (mapped.kind === "skipped")
    return { outcome: "skipped", event_type: mapped.event_type, reason: mapped.reason };
  const eventJson = JSON.stringify(mapped.event);
  const bytes = bytesBeyond(eventJson, maxEventBytes);
  if (bytes !== null) {
    return {
      outcome: "skipped",
      event_type: mapped.event_type,
      reason: `mapped event of ${bytes} bytes exceeds ${maxEventBytes}`,
    };
  }
  if (
    twins !== undefined &&
    mapped.transition !== null &&
    !twins.admit(mapped.transition, mapped.event.event_id)
  ) {
    return { outcome: "skipped", event_type: mapped.event_type, reason: twinReason };
  }
  return { outcome: "consumed", event_type: mapped.event_type, event: mapped.event, event_json: eventJson };
}
