import { createHash } from "node:crypto";
import { canonicalInstant } from "../../foundation/time/instant.ts";

interface EventIdParts {
  platform: string;
  cloud: string;
  resource_id: string;
  event_type: string;
  timestamp: string;
}

/**
 * The event id of an event whose provider gives none: the platform name, a colon, and the hex SHA-256
 * of `{cloud}:{resource_id}:{event_type}:{timestamp_iso}`, with the timestamp in canonical form so that
 * two writers of one fact (collector, simulator, reconciliation) derive the same id.
 */
export function derivedEventId(parts: EventIdParts): string {
  const timestamp = canonicalInstant(parts.timestamp);
  const digest = createHash("sha256")
    .update(`${parts.cloud}:${parts.resource_id}:${parts.event_type}:${timestamp}`)
    .digest("hex");
  return `${parts.platform}:${digest}`;
}
