/**
 * A hand-written sample (`fixtures/oslo/`) through the collector's reading: enveloped as oslo's
 * messagingv2 driver sends it, read back, mapped. For the mapping's tests, one shape each.
 */
import type { CanonicalEvent } from "../../lib/billing/events/event.ts";
import { encodeEnvelope, parseEnvelope } from "../../lib/billing/oslo/envelope.ts";
import { type MapResult, mapNotification } from "../../lib/billing/oslo/map-notification.ts";
import type { JsonObject } from "../../lib/foundation/json/json-value.ts";

const sampleTarget = { platform: "platform_a", cloud: "cloud-1" };

export function mapSample(message: JsonObject): MapResult {
  const parsed = parseEnvelope(encodeEnvelope(message));
  if (parsed.kind !== "notification") throw new Error(parsed.reason);
  return mapNotification(parsed.notification, sampleTarget);
}

/** The event a sample maps to; throws naming the reason when it maps to none. */
export function consumedSample(message: JsonObject): CanonicalEvent {
  const result = mapSample(message);
  if (result.kind !== "consumed") throw new Error(`skipped: ${result.reason}`);
  return result.event;
}
