import type { JsonObject } from "../../foundation/json/json-value.ts";
import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { firstString, numberAt, objectAt, pick, stringAt, usageProjectId } from "./payload-fields.ts";

/**
 * Legacy (unversioned) nova notifications that book a change of an instance (docs/oslo-mapping.md).
 * A resize is booked from `finish_resize.end` and its confirm or revert, never from `resize.end`.
 * A soft delete is an update to `soft_deleted` (its type has no `delete` part, so it categorizes as
 * one), undone by `restore.end` (decision 283).
 */
export const novaBooked: ReadonlySet<string> = new Set([
  "compute.instance.create.end",
  "compute.instance.delete.end",
  "compute.instance.exists",
  "compute.instance.finish_resize.end",
  "compute.instance.resize.confirm.end",
  "compute.instance.resize.revert.end",
  "compute.instance.power_off.end",
  "compute.instance.power_on.end",
  "compute.instance.shelve.end",
  "compute.instance.shelve_offload.end",
  "compute.instance.unshelve.end",
  "compute.instance.suspend.end",
  "compute.instance.resume.end",
  "compute.instance.pause.end",
  "compute.instance.unpause.end",
  "compute.instance.rebuild.end",
  "compute.instance.soft_delete.end",
  "compute.instance.restore.end",
]);

export const novaDeleteType = "compute.instance.delete.end";

/**
 * nova's vm_state to the instance state the platform API shows (lower-cased server status), so that a
 * reconciliation reading the server listing books the same state. `resized` is an instance running on
 * its new flavor awaiting confirmation: there is no `resized` state (oracle format 4). nova writes a
 * soft-deleted instance's vm_state `soft-delete` (`nova/compute/vm_states.py`); the pricing key is
 * `soft_deleted`, as the server status `SOFT_DELETED` reads (decision 283).
 */
const stateOfVmState: Readonly<Record<string, string>> = {
  active: "active",
  resized: "active",
  stopped: "shutoff",
  building: "build",
  rescued: "rescue",
  "soft-delete": "soft_deleted",
};

export function instanceState(vmState: string): string {
  return stateOfVmState[vmState] ?? vmState;
}

/** The size every instance event carries, from the flavor's figures as nova reports them. */
export function instanceSize(flavor: {
  vcpus: number | null;
  memory_mb: number | null;
  disk_gb: number | null;
  name: string | null;
}): JsonObject {
  return {
    vcpus: flavor.vcpus ?? 0,
    ram_gb: (flavor.memory_mb ?? 0) / 1024,
    disk_gb: flavor.disk_gb ?? 0,
    flavor: flavor.name ?? "",
  };
}

/** The request of a notification: oslo's serialized request context names it. */
export function contextRequestId(raw: JsonObject): string | null {
  return firstString(raw, "_context_request_id");
}

const providerMembers = [
  "instance_type_id",
  "instance_flavor_id",
  "memory_mb",
  "root_gb",
  "ephemeral_gb",
  "state",
  "state_description",
  "host",
  "availability_zone",
  "launched_at",
  "deleted_at",
  "audit_period_beginning",
  "audit_period_ending",
  "metadata",
] as const;

/** nova's legacy payloads (`nova/notifications/base.py` `info_from_instance`). */
export const mapNova: ServiceMapper = (eventType, payload, raw) => {
  if (objectAt(payload, "nova_object.data") !== null) return "a versioned payload under a legacy type";
  if (!novaBooked.has(eventType)) return "not a booked compute.instance transition";
  const change: MappedChange = {
    resource_type: "instance",
    resource_id: stringAt(payload, "instance_id") ?? "",
    project_id: usageProjectId(payload, raw),
    provider: pick(payload, providerMembers),
    request_id: contextRequestId(raw),
  };
  if (eventType === novaDeleteType) return change;
  change.state = instanceState(stringAt(payload, "state") ?? "");
  change.size = instanceSize({
    vcpus: numberAt(payload, "vcpus"),
    memory_mb: numberAt(payload, "memory_mb"),
    disk_gb:
      numberAt(payload, "disk_gb") ??
      (numberAt(payload, "root_gb") ?? 0) + (numberAt(payload, "ephemeral_gb") ?? 0),
    name: stringAt(payload, "instance_type"),
  });
  return change;
};
