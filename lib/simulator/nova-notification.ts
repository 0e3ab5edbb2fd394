import type { JsonObject } from "../events/event.ts";
import { bootImageId, flavorNamed } from "./catalog.ts";
import { innerMessage, pythonTime, type RenderInput } from "./notification-context.ts";

/** Canonical instance state back to nova's vm_state, as the legacy payload's `state` carries it. */
const vmStateOf: Readonly<Record<string, string>> = { shutoff: "stopped" };

function vmState(eventType: string, state: string): string {
  if (eventType === "compute.instance.create.start") return "building";
  if (eventType === "compute.instance.delete.end") return "deleted";
  // nova leaves the instance in vm_state `resized` until the resize is confirmed or reverted.
  if (eventType === "compute.instance.finish_resize.end") return "resized";
  return vmStateOf[state] ?? state;
}

/**
 * A legacy compute.instance.* notification as nova's `notifications.info_from_instance` builds it
 * (docs/oslo-mapping.md names the sources), including the daily `compute.instance.exists` audit with
 * its audit period and bandwidth members.
 */
export function novaMessage(input: RenderInput): JsonObject {
  const { resource, step, truth, created, tenant } = input;
  const flavor = flavorNamed(String(truth.size.flavor));
  const host = String(resource.attributes.host);
  const launched = created.at + 30_000;
  const payload: JsonObject = {
    tenant_id: truth.project_id,
    user_id: tenant.user_id,
    instance_id: resource.resource_id,
    display_name: resource.attributes.name ?? "",
    hostname: resource.attributes.name ?? "",
    reservation_id: `r-${resource.resource_id.slice(0, 8)}`,
    instance_type: flavor.name,
    instance_type_id: Number(flavor.id),
    instance_flavor_id: flavor.id,
    memory_mb: flavor.memory_mb,
    disk_gb: flavor.root_gb + flavor.ephemeral_gb,
    root_gb: flavor.root_gb,
    ephemeral_gb: flavor.ephemeral_gb,
    vcpus: flavor.vcpus,
    host,
    node: `${host}.cloud.example`,
    availability_zone: "nova",
    cell_name: "",
    architecture: "x86_64",
    os_type: "linux",
    kernel_id: "",
    ramdisk_id: "",
    created_at: pythonTime(created.at),
    launched_at: step.event_type === "compute.instance.create.start" ? "" : pythonTime(launched),
    terminated_at: step.event_type === "compute.instance.delete.end" ? pythonTime(step.at) : "",
    deleted_at: step.event_type === "compute.instance.delete.end" ? pythonTime(step.at) : "",
    image_ref_url: `http://image.cloud.example/images/${bootImageId}`,
    image_meta: { base_image_ref: bootImageId, min_disk: "20", min_ram: "0", container_format: "bare" },
    state: vmState(step.event_type, truth.state),
    state_description: "",
    progress: "",
    access_ip_v4: null,
    access_ip_v6: null,
    fixed_ips: [],
    metadata: {},
  };
  if (step.event_type === "compute.instance.exists") {
    const dayMs = 24 * 60 * 60 * 1000;
    const ending = Math.floor(step.at / dayMs) * dayMs;
    payload.audit_period_beginning = pythonTime(ending - dayMs);
    payload.audit_period_ending = pythonTime(ending);
    payload.bandwidth = {};
  }
  return innerMessage(input, `compute.${host}`, step.event_type, payload);
}

/**
 * The versioned twin of a compute notification (`instance.*`, payload under `nova_object.data`), which
 * a deployment emitting both formats sends beside the legacy one; the collector must skip it.
 */
export function novaVersionedMessage(input: RenderInput, messageId: string): JsonObject {
  const { resource, step, truth, tenant } = input;
  const flavor = flavorNamed(String(truth.size.flavor));
  const eventType = step.event_type.replace(/^compute\./, "");
  const message = innerMessage(input, `nova-compute:${resource.attributes.host}`, eventType, {
    "nova_object.name": "InstanceActionPayload",
    "nova_object.namespace": "nova",
    "nova_object.version": "1.8",
    "nova_object.data": {
      uuid: resource.resource_id,
      tenant_id: truth.project_id,
      user_id: tenant.user_id,
      host_name: String(resource.attributes.name),
      state: vmState(step.event_type, truth.state),
      flavor: {
        "nova_object.name": "FlavorPayload",
        "nova_object.namespace": "nova",
        "nova_object.version": "1.4",
        "nova_object.data": {
          flavorid: flavor.id,
          name: flavor.name,
          vcpus: flavor.vcpus,
          memory_mb: flavor.memory_mb,
          root_gb: flavor.root_gb,
          ephemeral_gb: flavor.ephemeral_gb,
        },
      },
    },
  });
  message.message_id = messageId;
  return message;
}
