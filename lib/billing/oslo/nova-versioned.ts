import type { JsonObject } from "../../foundation/json/json-value.ts";
import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { contextRequestId, instanceSize, instanceState, novaBooked, novaDeleteType } from "./nova.ts";
import { firstString, numberAt, objectAt, pick, stringAt } from "./payload-fields.ts";

/**
 * The versioned types whose names differ from their legacy twin's past the `compute.` prefix
 * (`nova/objects/fields.py` NotificationAction): the resize family is named by phase of one action.
 */
const renamed: Readonly<Record<string, string>> = {
  "instance.resize_finish.end": "compute.instance.finish_resize.end",
  "instance.resize_confirm.end": "compute.instance.resize.confirm.end",
  "instance.resize_revert.end": "compute.instance.resize.revert.end",
};

/** The legacy twin of a versioned type when that twin is booked, else null. */
export function legacyTwinOf(versionedType: string): string | null {
  const legacy = renamed[versionedType] ?? `compute.${versionedType}`;
  return novaBooked.has(legacy) ? legacy : null;
}

/** The `nova_object.data` of a versioned object, or null. */
function objectData(obj: JsonObject | null): JsonObject | null {
  return obj === null ? null : objectAt(obj, "nova_object.data");
}

const providerMembers = [
  "host",
  "node",
  "state",
  "power_state",
  "task_state",
  "availability_zone",
  "launched_at",
  "deleted_at",
  "updated_at",
] as const;

/**
 * nova's versioned notifications (`instance.*`, the payload an `InstancePayload` under
 * `nova_object.data`, `nova/notifications/objects/instance.py`), booked as the same events as their
 * legacy twins (decision 284): the twin's type, the same state and the same size, read from the
 * nested `FlavorPayload`. The event keeps the notification's own message id; the request it carries
 * tells it apart as the twin of a legacy notification when a cloud sends both.
 */
export const mapNovaVersioned: ServiceMapper = (eventType, payload, raw) => {
  const data = objectData(payload);
  if (data === null) return "an instance.* notification without a versioned payload";
  const legacy = legacyTwinOf(eventType);
  if (legacy === null) return "not a booked instance transition";
  const change: MappedChange = {
    resource_type: "instance",
    resource_id: stringAt(data, "uuid") ?? "",
    project_id: firstString(data, "tenant_id") ?? firstString(raw, "_context_project_id") ?? "",
    provider: { ...pick(data, providerMembers), event_type_as_sent: eventType },
    event_type: legacy,
    request_id: contextRequestId(raw) ?? firstString(data, "request_id"),
  };
  if (legacy === novaDeleteType) return change;
  const flavor = objectData(objectAt(data, "flavor"));
  change.state = instanceState(stringAt(data, "state") ?? "");
  change.size = instanceSize({
    vcpus: numberAt(flavor, "vcpus"),
    memory_mb: numberAt(flavor, "memory_mb"),
    disk_gb: (numberAt(flavor, "root_gb") ?? 0) + (numberAt(flavor, "ephemeral_gb") ?? 0),
    name: stringAt(flavor, "name"),
  });
  return change;
};
