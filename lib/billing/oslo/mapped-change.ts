import type { JsonObject } from "../../foundation/json/json-value.ts";

/**
 * What a service mapper reads out of one notification: the resource, its owner and the envelope
 * members. The common part (event id, timestamp, platform, cloud) is added by `mapNotification`.
 */
export interface MappedChange {
  resource_type: string;
  resource_id: string;
  project_id: string;
  /** Absent on a delete: the core sets `deleted` itself. */
  state?: string;
  size?: JsonObject;
  provider: JsonObject;
}

/** A service mapper: a change for a mapped type, or the reason the type maps to nothing. */
export type ServiceMapper = (
  eventType: string,
  payload: JsonObject,
  raw: JsonObject,
) => MappedChange | string;
