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
  /**
   * The event's type when it is not the notification's own: a versioned nova notification is booked
   * under the type of its legacy twin, so one transition is one kind of event in either format.
   */
  event_type?: string;
  /**
   * The request that made the transition, for a service that states one transition in two formats
   * (nova): with the resource and the event type it tells a twin from another transition (decision 284).
   */
  request_id?: string | null;
}

/** A service mapper: a change for a mapped type, or the reason the type maps to nothing. */
export type ServiceMapper = (
  eventType: string,
  payload: JsonObject,
  raw: JsonObject,
) => MappedChange | string;
