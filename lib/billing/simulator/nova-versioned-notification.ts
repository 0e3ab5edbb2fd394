import { createHash } from "node:crypto";
import { utcDateTime } from "../../foundation/time/utc-text.ts";
import { bootImageId } from "./catalog.ts";
import { hole, type Spec } from "./message-template.ts";
import { innerMessageSpec, type RenderInput } from "./notification-context.ts";
import { flavorOf, hostOf, nameOf, vmState } from "./nova-notification.ts";

/** nova's topic for versioned notifications at INFO priority: the routing key they are published under. */
export const versionedTopic = "versioned_notifications.info";

/**
 * The versioned name of each legacy type the generator schedules, in nova's own words
 * (`nova/objects/fields.py` NotificationAction and NotificationPhase): the resize family is named by
 * phase of one action, every other by the legacy suffix under `instance.`. Written here, apart from the
 * mapping's reading of it (`lib/billing/oslo/nova-versioned.ts`), so that a wrong name on either side
 * shows as a month that does not fold to its oracle.
 */
const versionedNames: Readonly<Record<string, string>> = {
  "compute.instance.finish_resize.end": "instance.resize_finish.end",
  "compute.instance.resize.confirm.end": "instance.resize_confirm.end",
  "compute.instance.resize.revert.end": "instance.resize_revert.end",
};

export function versionedType(legacyType: string): string {
  return versionedNames[legacyType] ?? legacyType.replace(/^compute\.instance\./, "instance.");
}

/** The payload object of each versioned type (`nova/notifications/objects/instance.py`). */
function payloadObject(type: string): { name: string; version: string } {
  if (type.startsWith("instance.create.")) return { name: "InstanceCreatePayload", version: "1.12" };
  if (type === "instance.exists") return { name: "InstanceExistsPayload", version: "2.1" };
  return { name: "InstanceActionPayload", version: "1.8" };
}

/** nova's power state names (`nova/objects/fields.py` InstancePowerState) of a canonical state. */
const powerStates: Readonly<Record<string, string>> = {
  active: "running",
  build: "pending",
  paused: "paused",
  suspended: "suspended",
};

const iso = (ms: number) => `${utcDateTime(ms, "T")}Z`;

/**
 * The versioned notification's own message id: nova sends the two formats as two messages. Derived
 * from the legacy one so that it is fixed by the seed without a draw of its own (a draw would move every
 * later one of the month).
 */
export function versionedMessageId(legacyId: string): string {
  const hex = createHash("sha256").update(`${legacyId}:versioned`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The versioned twin of a legacy compute notification, as nova's versioned notifier sends it beside
 * the legacy one under `notification_format = both` (decision 287): an `InstancePayload` under
 * `nova_object.data` with its flavor a nested `FlavorPayload`, times in ISO 8601 with `Z`, the same
 * request context and the same instant as the legacy one, its own message id.
 */
export function novaVersionedSpec(legacyType: string): Spec<RenderInput> {
  const type = versionedType(legacyType);
  const object = payloadObject(type);
  const deleted = legacyType === "compute.instance.delete.end";
  const building = legacyType === "compute.instance.create.start";
  const data: { [key: string]: Spec<RenderInput> } = {
    uuid: hole((i) => i.resource.resource_id),
    user_id: hole((i) => i.tenant.user_id),
    tenant_id: hole((i) => i.truth.project_id),
    reservation_id: hole((i) => `r-${i.resource.resource_id.slice(0, 8)}`),
    display_name: hole(nameOf),
    display_description: "",
    host_name: hole(nameOf),
    host: hole(hostOf),
    node: hole((i) => `${hostOf(i)}.cloud.example`),
    os_type: "linux",
    architecture: "x86_64",
    availability_zone: "nova",
    flavor: {
      "nova_object.name": "FlavorPayload",
      "nova_object.namespace": "nova",
      "nova_object.version": "1.4",
      "nova_object.data": {
        flavorid: hole((i) => flavorOf(i).id),
        name: hole((i) => flavorOf(i).name),
        memory_mb: hole((i) => flavorOf(i).memory_mb),
        vcpus: hole((i) => flavorOf(i).vcpus),
        root_gb: hole((i) => flavorOf(i).root_gb),
        ephemeral_gb: hole((i) => flavorOf(i).ephemeral_gb),
        swap: 0,
        rxtx_factor: 1.0,
        is_public: true,
        disabled: false,
        extra_specs: {},
        projects: null,
        description: null,
      },
    },
    image_uuid: bootImageId,
    key_name: null,
    kernel_id: "",
    ramdisk_id: "",
    created_at: hole((i) => iso(i.created.at)),
    launched_at: building ? null : hole((i) => iso(i.created.at + 30_000)),
    terminated_at: deleted ? hole((i) => iso(i.step.at)) : null,
    deleted_at: deleted ? hole((i) => iso(i.step.at)) : null,
    updated_at: hole((i) => iso(i.step.at)),
    state: hole((i) => vmState(legacyType, i.truth.state)),
    power_state: hole((i) => (deleted ? "pending" : (powerStates[i.truth.state] ?? "shutdown"))),
    task_state: null,
    progress: 0,
    ip_addresses: [],
    block_devices: [],
    metadata: {},
    locked: false,
    auto_disk_config: "MANUAL",
    request_id: hole((i) => i.step.request_id),
    action_initiator_user: hole((i) => i.tenant.user_id),
    action_initiator_project: hole((i) => i.tenant.project_id),
    locked_reason: null,
  };
  if (object.name === "InstanceActionPayload") data.fault = null;
  if (object.name === "InstanceCreatePayload") {
    data.keypairs = [];
    data.tags = [];
    data.trusted_image_certificates = null;
    data.instance_name = hole((i) => `instance-${i.resource.resource_id.slice(0, 8)}`);
  }
  if (type === "instance.exists") {
    const dayMs = 24 * 60 * 60 * 1000;
    const ending = (i: RenderInput) => Math.floor(i.step.at / dayMs) * dayMs;
    data.audit_period = {
      "nova_object.name": "AuditPeriodPayload",
      "nova_object.namespace": "nova",
      "nova_object.version": "1.0",
      "nova_object.data": {
        audit_period_beginning: hole((i) => iso(ending(i) - dayMs)),
        audit_period_ending: hole((i) => iso(ending(i))),
      },
    };
    data.bandwidth = [];
  }
  const payload = {
    "nova_object.name": object.name,
    "nova_object.namespace": "nova",
    "nova_object.version": object.version,
    "nova_object.data": data,
  };
  return innerMessageSpec(
    hole((i) => `nova-compute:${hostOf(i)}`),
    type,
    payload,
    hole((i) => versionedMessageId(i.step.message_id)),
  );
}
