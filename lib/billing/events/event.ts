import type { JsonObject, JsonValue } from "../../foundation/json/json-value.ts";

/**
 * The canonical event: one immutable lifecycle fact about a cloud resource
 * (1-reporting-api.md, "Event (canonical)"). Ingest, the collector, the simulator and reconciliation
 * all speak this shape.
 */

export type EventSource = "collector" | "reconciliation";
export const eventSources: readonly EventSource[] = ["collector", "reconciliation"];

/** Members the envelope names; any other member of a payload survives decode and encode unchanged. */
export interface PayloadEnvelope {
  state?: string | null;
  size?: JsonObject;
  provider?: JsonObject;
  [extra: string]: JsonValue | undefined;
}

export interface CanonicalEvent {
  event_id: string;
  /** Canonical instant (lib/foundation/time/instant.ts). */
  timestamp: string;
  event_type: string;
  platform: string;
  cloud: string;
  resource_type: string;
  resource_id: string;
  project_id: string;
  source: EventSource;
  payload: PayloadEnvelope;
}

/** Platform and cloud names reserved for virtual projects; no event may use them. */
export const reservedPlatformNames: readonly string[] = ["meta", "partner"];

/** The one registered platform (the spec's neutral `platform_a`). */
export const platformA = "platform_a";
