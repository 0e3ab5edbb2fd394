import type { JsonObject } from "../../foundation/json/json-value.ts";
import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { firstString, numberAt, objectAt, pick, stringAt } from "./payload-fields.ts";

/**
 * Legacy (unversioned) nova notifications that book a change of an instance (docs/oslo-mapping.md).
 * A resize is booked from `finish_resize.end` and its confirm or revert, never from `resize.end`.
 */
const booked: ReadonlySet<string> = new Set([
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
]);

/**
 * nova's vm_state to the instance state the platform API shows (lower-cased server status), so that a
 * reconciliation reading the server listing books the same state. `resized` is an instance running on
 * its new flavor awaiting confirmation: there is no `resized` state (oracle format 4).
 */
const stateOfVmState: Readonly<Record<string, string>> = {
  active: "active",
  resized: "active",
  stopped: "shutoff",
  building: "build",
  rescued: "rescue",
};

export function instanceState(vmState: string): string {
  return stateOfVmState[vmState] ?? vmState;
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

export const mapNova: ServiceMapper = (eventType, payload, raw) => {
  if (objectAt(payload, "nova_object.data") !== null) return "versioned notification";
  if (!booked.has(eventType)) return "not a booked compute.instance transition";
  const change: MappedChange = {
    resource_type: "instance",
    resource_id: stringAt(payload, "instance_id") ?? "",
    project_id:
      firstString(payload, "tenant_id", "project_id") ?? firstString(raw, "_context_project_id") ?? "",
    provider: pick(payload, providerMembers),
  };
  if (eventType === "compute.instance.delete.end") return change;
  change.state = instanceState(stringAt(payload, "state") ?? "");
  change.size = instanceSize(payload);
  return change;
};

function instanceSize(payload: JsonObject): JsonObject {
  const memoryMb = numberAt(payload, "memory_mb") ?? 0;
  const diskGb =
    numberAt(payload, "disk_gb") ??
    (numberAt(payload, "root_gb") ?? 0) + (numberAt(payload, "ephemeral_gb") ?? 0);
  return {
    vcpus: numberAt(payload, "vcpus") ?? 0,
    ram_gb: memoryMb / 1024,
    disk_gb: diskGb,
    flavor: stringAt(payload, "instance_type") ?? "",
  };
}
