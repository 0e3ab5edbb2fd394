import { utcDateTime } from "../../foundation/time/utc-text.ts";
import { osloTimestamp } from "../oslo/timestamp.ts";
import { hole, type Spec } from "./message-template.ts";
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
  return `${utcDateTime(ms, " ")}+00:00`;
}

/** The oslo timestamp of a step: `2026-10-03 12:00:05.123456` (with `T` as the separator, the context's). */
function stepTimestamp(input: RenderInput, separator = " "): string {
  return osloTimestamp(input.step.at, input.step.micros, separator);
}

/**
 * The inner message oslo.messaging's notifier writes: the envelope members plus the serialized
 * request context (`_context_*`), which several consumers (ceilometer for neutron) read the owner from.
 */
export function innerMessageSpec(
  publisherId: Spec<RenderInput>,
  eventType: string,
  payload: Spec<RenderInput>,
  messageId: Spec<RenderInput> = hole((i) => i.step.message_id),
): Spec<RenderInput> {
  return {
    message_id: messageId,
    publisher_id: publisherId,
    event_type: eventType,
    priority: "INFO",
    payload,
    timestamp: hole(stepTimestamp),
    _context_request_id: hole((i) => i.step.request_id),
    _context_user_id: hole((i) => i.tenant.user_id),
    _context_project_id: hole((i) => i.tenant.project_id),
    _context_tenant: hole((i) => i.tenant.project_id),
    _context_user: hole((i) => i.tenant.user_id),
    _context_roles: ["member", "reader"],
    _context_is_admin: false,
    _context_read_only: false,
    _context_timestamp: hole((i) => stepTimestamp(i, "T")),
  };
}
