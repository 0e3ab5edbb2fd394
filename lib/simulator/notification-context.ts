import type { JsonObject } from "../events/event.ts";
import { osloTimestamp } from "../oslo/timestamp.ts";
import type { SimResource, Step, Tenant, Truth } from "./month.ts";

/** What a service renderer needs to write one notification of one step. */
export interface RenderInput {
  resource: SimResource;
  step: Step;
  /** The truth the step describes: its own, or for a delete the truth just before it. */
  truth: Truth;
  /** The resource's truth at its first billable step (creation facts such as `created_at`). */
  created: { at: number; truth: Truth };
  tenant: Tenant;
}

/** oslo renders dates in payloads the way Python's `str(datetime)` does. */
export function pythonTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")}+00:00`;
}

/**
 * The inner message oslo.messaging's notifier writes: the envelope members plus the serialized
 * request context (`_context_*`), which several consumers (ceilometer for neutron) read the owner from.
 */
export function innerMessage(
  input: RenderInput,
  publisherId: string | null,
  eventType: string,
  payload: JsonObject,
): JsonObject {
  const { step, tenant } = input;
  const timestamp = osloTimestamp(step.at, step.micros);
  return {
    message_id: step.message_id,
    publisher_id: publisherId,
    event_type: eventType,
    priority: "INFO",
    payload,
    timestamp,
    _context_request_id: step.request_id,
    _context_user_id: tenant.user_id,
    _context_project_id: tenant.project_id,
    _context_tenant: tenant.project_id,
    _context_user: tenant.user_id,
    _context_roles: ["member", "reader"],
    _context_is_admin: false,
    _context_read_only: false,
    _context_timestamp: timestamp.replace(" ", "T"),
  };
}
