import type { JsonObject } from "../../../../foundation/json/json-value.ts";
import { untypedVolumeType } from "../../../oslo/cinder.ts";
import { instanceState } from "../../../oslo/nova.ts";
import {
  arrayLengthAt,
  firstString,
  numberAt,
  objectAt,
  pick,
  stringAt,
} from "../../../oslo/payload-fields.ts";
import { osloInstant } from "../../../oslo/timestamp.ts";
import type { ListedSizeName, ObservedDeletion, ObservedResource } from "../../sync/observation.ts";

/**
 * The `platform_a` listings read as the collector's mapping reads the same resources' notifications
 * (`lib/billing/oslo`), so a sync and the collector book one state and one size for one resource (decisions
 * 201, 204–206, 238): what differs between them is a real difference, never a difference of reading.
 * Pure: one listed document in, one observed resource out.
 */

/** An instant as the services write it (nova and neutron `Z`, cinder microseconds, octavia bare). */
function instantAt(doc: JsonObject, key: string): string | null {
  const value = stringAt(doc, key);
  return value === null ? null : osloInstant(value);
}

function observed(
  doc: JsonObject,
  fields: Omit<ObservedResource, "resource_id" | "created_at" | "changed_at"> & {
    created: string;
    changed: string;
  },
): ObservedResource {
  const { created, changed, ...rest } = fields;
  return {
    ...rest,
    resource_id: stringAt(doc, "id") ?? "",
    created_at: instantAt(doc, created),
    changed_at: instantAt(doc, changed),
  };
}

/** nova vm_states an operation is still moving (decision 171): an unconfirmed resize may revert. */
const novaMoving: ReadonlySet<string> = new Set(["building", "resized"]);

/** A flavor of `flavors/detail`, for a server that names its flavor by id (microversions below 2.47). */
export interface ListedFlavor {
  id: string;
  name: string;
  vcpus: number;
  ram_mb: number;
  disk_gb: number;
}

export function listedFlavor(doc: JsonObject): ListedFlavor {
  return {
    id: stringAt(doc, "id") ?? "",
    name: stringAt(doc, "name") ?? "",
    vcpus: numberAt(doc, "vcpus") ?? 0,
    ram_mb: numberAt(doc, "ram") ?? 0,
    disk_gb: (numberAt(doc, "disk") ?? 0) + (numberAt(doc, "OS-FLV-EXT-DATA:ephemeral") ?? 0),
  };
}

/** The size nova's notifications give (`lib/billing/oslo/nova.ts`), from the server's flavor. */
function serverSize(doc: JsonObject, flavors: ReadonlyMap<string, ListedFlavor>): JsonObject | null {
  const flavor = objectAt(doc, "flavor");
  const embedded = stringAt(flavor, "original_name");
  if (flavor !== null && embedded !== null) {
    return {
      vcpus: numberAt(flavor, "vcpus") ?? 0,
      ram_gb: (numberAt(flavor, "ram") ?? 0) / 1024,
      disk_gb: (numberAt(flavor, "disk") ?? 0) + (numberAt(flavor, "ephemeral") ?? 0),
      flavor: embedded,
    };
  }
  const listed = flavors.get(stringAt(flavor, "id") ?? "");
  if (listed === undefined) return null;
  return { vcpus: listed.vcpus, ram_gb: listed.ram_mb / 1024, disk_gb: listed.disk_gb, flavor: listed.name };
}

/**
 * A server of `servers/detail` (microversion 2.47 embeds its flavor; an older answer names the flavor
 * by id, looked up in `flavors`). Deferred while a task runs or the vm_state is `building` or `resized`;
 * a server whose flavor cannot be read (deleted, with an old microversion) is deferred too, since a
 * size cannot be stated for it.
 */
export function observedServer(
  doc: JsonObject,
  flavors: ReadonlyMap<string, ListedFlavor>,
): ObservedResource {
  const vmState = stringAt(doc, "OS-EXT-STS:vm_state") ?? (stringAt(doc, "status") ?? "").toLowerCase();
  const task = stringAt(doc, "OS-EXT-STS:task_state");
  const size = serverSize(doc, flavors);
  return observed(doc, {
    resource_type: "instance",
    project_id: firstString(doc, "tenant_id", "project_id") ?? "",
    state: instanceState(vmState),
    size: size ?? {},
    in_transition: (task !== null && task !== "") || novaMoving.has(vmState) || size === null,
    provider: pick(doc, ["status", "OS-EXT-STS:vm_state", "OS-EXT-STS:task_state", "created", "updated"]),
    created: "created",
    changed: "updated",
  });
}

/**
 * A server of `servers/detail?deleted=true&changes-since=...`: deleted at nova's `terminated_at`, or
 * its last update when it has none. Null for a server that is not deleted (soft-deleted ones are live).
 */
export function deletedServer(doc: JsonObject): ObservedDeletion | null {
  const vmState = stringAt(doc, "OS-EXT-STS:vm_state") ?? (stringAt(doc, "status") ?? "").toLowerCase();
  if (vmState !== "deleted") return null;
  const at = instantAt(doc, "OS-SRV-USG:terminated_at") ?? instantAt(doc, "updated");
  if (at === null) return null;
  return {
    resource_type: "instance",
    resource_id: stringAt(doc, "id") ?? "",
    project_id: firstString(doc, "tenant_id", "project_id") ?? "",
    deleted_at: at,
  };
}

/** cinder statuses of an operation under way (decision 171). */
const cinderMoving: ReadonlySet<string> = new Set([
  "creating",
  "attaching",
  "detaching",
  "deleting",
  "extending",
  "retyping",
  "downloading",
  "uploading",
  "backing-up",
  "restoring-backup",
  "awaiting-transfer",
  "reserved",
  "maintenance",
]);

/**
 * A volume of `volumes/detail`. Its type is booked by id, as cinder's notifications carry it:
 * `volume_type_id` where the answer has it (microversion 3.63), else the id of the type listed under the
 * name `volume_type` shows; a volume without a type is `__DEFAULT__`, as the collector books it.
 */
export function observedVolume(doc: JsonObject, typeIds: ReadonlyMap<string, string>): ObservedResource {
  const typeName = stringAt(doc, "volume_type");
  const type =
    stringAt(doc, "volume_type_id") ?? (typeName === null ? null : (typeIds.get(typeName) ?? typeName));
  const status = stringAt(doc, "status") ?? "";
  return observed(doc, {
    resource_type: "volume",
    project_id: firstString(doc, "os-vol-tenant-attr:tenant_id", "project_id", "tenant_id") ?? "",
    state: status,
    size: {
      size_gb: numberAt(doc, "size") ?? 0,
      type: type === null || type === "" ? untypedVolumeType : type,
    },
    in_transition: cinderMoving.has(status),
    provider: pick(doc, ["status", "volume_type", "created_at", "updated_at"]),
    created: "created_at",
    changed: "updated_at",
  });
}

/** The volume types of `types`: the cloud's size names for volumes (docs/reporting-api.md#size-names). */
export function volumeTypeNames(docs: readonly JsonObject[]): ListedSizeName[] {
  const names: ListedSizeName[] = [];
  for (const doc of docs) {
    const id = stringAt(doc, "id");
    const name = stringAt(doc, "name");
    if (id !== null && name !== null)
      names.push({ resource_type: "volume", member: "type", value: id, name });
  }
  return names;
}

/** cinder's snapshot and backup statuses of an operation under way (decision 171). */
const copyMoving: ReadonlySet<string> = new Set([
  "creating",
  "deleting",
  "restoring",
  "backing-up",
  "unmanaging",
]);

/**
 * A snapshot of `snapshots/detail` or a backup of `backups/detail` (decision 182): sized by the GiB
 * cinder lists, as `lib/billing/oslo/cinder-copies.ts` books their notifications; the owner in the
 * extended attribute each has (`os-backup-project-attr:project_id` from microversion 3.18).
 */
export function observedVolumeCopy(
  doc: JsonObject,
  kind: "volume_snapshot" | "volume_backup",
): ObservedResource {
  const status = stringAt(doc, "status") ?? "";
  const owner =
    kind === "volume_snapshot"
      ? "os-extended-snapshot-attributes:project_id"
      : "os-backup-project-attr:project_id";
  return observed(doc, {
    resource_type: kind,
    project_id: firstString(doc, owner, "project_id") ?? "",
    state: status,
    size: { size_gb: numberAt(doc, "size") ?? 0 },
    in_transition: copyMoving.has(status),
    provider: pick(doc, ["status", "volume_id", "created_at", "updated_at"]),
    created: "created_at",
    changed: "updated_at",
  });
}

/** A floating IP of neutron's `floatingips`: ip_version from the address, as for the notification. */
export function observedFloatingIp(doc: JsonObject): ObservedResource {
  const address = stringAt(doc, "floating_ip_address") ?? "";
  return observed(doc, {
    resource_type: "floating_ip",
    project_id: firstString(doc, "project_id", "tenant_id") ?? "",
    state: (stringAt(doc, "status") ?? "").toLowerCase(),
    size: { ip_version: address.includes(":") ? 6 : 4 },
    in_transition: false,
    provider: pick(doc, ["status", "floating_ip_address", "created_at", "updated_at"]),
    created: "created_at",
    changed: "updated_at",
  });
}

/** glance statuses of an operation under way (decision 171); `queued` is a state. */
const glanceMoving: ReadonlySet<string> = new Set(["saving", "importing", "uploading", "pending_delete"]);

const bytesPerGb = 1024 ** 3;

/** An image of glance's `v2/images`: size in GiB of its bytes (0 until uploaded), as `lib/billing/oslo/glance.ts`. */
/** The size glance's notifications give (`lib/billing/oslo/glance.ts`): GiB, and the disk format when stated. */
function imageSize(doc: JsonObject): JsonObject {
  const format = stringAt(doc, "disk_format");
  const size: JsonObject = { size_gb: (numberAt(doc, "size") ?? 0) / bytesPerGb };
  if (format !== null && format !== "") size.disk_format = format;
  return size;
}

export function observedImage(doc: JsonObject): ObservedResource {
  const status = (stringAt(doc, "status") ?? "").toLowerCase();
  return observed(doc, {
    resource_type: "image",
    project_id: firstString(doc, "owner") ?? "",
    state: status,
    size: imageSize(doc),
    in_transition: glanceMoving.has(status),
    provider: pick(doc, ["status", "created_at", "updated_at"]),
    created: "created_at",
    changed: "updated_at",
  });
}

/**
 * A load balancer of octavia's `lbaas/loadbalancers`, sized by the listeners and pools it lists: the
 * one place they are booked (decision 204). Deferred while its provisioning status is `PENDING_*`.
 * Null for one octavia still shows as `DELETED`: it is gone.
 */
/** The size octavia's notifications give (`lib/billing/oslo/octavia.ts`): members, and the flavor when it has one. */
function loadBalancerSize(doc: JsonObject): JsonObject {
  const flavor = stringAt(doc, "flavor_id");
  const size: JsonObject = {
    listeners: arrayLengthAt(doc, "listeners") ?? 0,
    pools: arrayLengthAt(doc, "pools") ?? 0,
  };
  if (flavor !== null && flavor !== "") size.flavor = flavor;
  return size;
}

export function observedLoadBalancer(doc: JsonObject): ObservedResource | null {
  const status = stringAt(doc, "provisioning_status") ?? "";
  if (status === "DELETED") return null;
  return observed(doc, {
    resource_type: "loadbalancer",
    project_id: firstString(doc, "project_id", "tenant_id") ?? "",
    state: status.toLowerCase(),
    size: loadBalancerSize(doc),
    in_transition: status.startsWith("PENDING_"),
    provider: pick(doc, ["provisioning_status", "operating_status", "created_at", "updated_at"]),
    created: "created_at",
    changed: "updated_at",
  });
}
