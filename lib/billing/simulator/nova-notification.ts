import { bootImageId, flavorNamed } from "./catalog.ts";
import { hole, type Spec } from "./message-template.ts";
import { innerMessageSpec, pythonTime, type RenderInput } from "./notification-context.ts";

/** Canonical instance state back to nova's vm_state, as the legacy payload's `state` carries it. */
const vmStateOf: Readonly<Record<string, string>> = { shutoff: "stopped" };

export function vmState(eventType: string, state: string): string {
  if (eventType === "compute.instance.create.start") return "building";
  if (eventType === "compute.instance.delete.end") return "deleted";
  // nova leaves the instance in vm_state `resized` until the resize is confirmed or reverted.
  if (eventType === "compute.instance.finish_resize.end") return "resized";
  return vmStateOf[state] ?? state;
}

export const flavorOf = (input: RenderInput) => flavorNamed(String(input.truth.size.flavor));
export const hostOf = (input: RenderInput) => String(input.resource.attributes.host);
export const nameOf = (input: RenderInput) => input.resource.attributes.name ?? "";

/**
 * A legacy compute.instance.* notification as nova's `notifications.info_from_instance` builds it
 * (docs/oslo-mapping.md names the sources), including the daily `compute.instance.exists` audit with
 * its audit period and bandwidth members.
 */
export function novaSpec(eventType: string): Spec<RenderInput> {
  const deleted = eventType === "compute.instance.delete.end";
  const payload: { [key: string]: Spec<RenderInput> } = {
    tenant_id: hole((i) => i.truth.project_id),
    user_id: hole((i) => i.tenant.user_id),
    instance_id: hole((i) => i.resource.resource_id),
    display_name: hole(nameOf),
    hostname: hole(nameOf),
    reservation_id: hole((i) => `r-${i.resource.resource_id.slice(0, 8)}`),
    instance_type: hole((i) => flavorOf(i).name),
    instance_type_id: hole((i) => Number(flavorOf(i).id)),
    instance_flavor_id: hole((i) => flavorOf(i).id),
    memory_mb: hole((i) => flavorOf(i).memory_mb),
    disk_gb: hole((i) => flavorOf(i).root_gb + flavorOf(i).ephemeral_gb),
    root_gb: hole((i) => flavorOf(i).root_gb),
    ephemeral_gb: hole((i) => flavorOf(i).ephemeral_gb),
    vcpus: hole((i) => flavorOf(i).vcpus),
    host: hole(hostOf),
    node: hole((i) => `${hostOf(i)}.cloud.example`),
    availability_zone: "nova",
    cell_name: "",
    architecture: "x86_64",
    os_type: "linux",
    kernel_id: "",
    ramdisk_id: "",
    created_at: hole((i) => pythonTime(i.created.at)),
    launched_at:
      eventType === "compute.instance.create.start" ? "" : hole((i) => pythonTime(i.created.at + 30_000)),
    terminated_at: deleted ? hole((i) => pythonTime(i.step.at)) : "",
    deleted_at: deleted ? hole((i) => pythonTime(i.step.at)) : "",
    image_ref_url: `http://image.cloud.example/images/${bootImageId}`,
    image_meta: { base_image_ref: bootImageId, min_disk: "20", min_ram: "0", container_format: "bare" },
    state: hole((i) => vmState(eventType, i.truth.state)),
    state_description: "",
    progress: "",
    access_ip_v4: null,
    access_ip_v6: null,
    fixed_ips: [],
    metadata: {},
  };
  if (eventType === "compute.instance.exists") {
    const dayMs = 24 * 60 * 60 * 1000;
    const ending = (i: RenderInput) => Math.floor(i.step.at / dayMs) * dayMs;
    payload.audit_period_beginning = hole((i) => pythonTime(ending(i) - dayMs));
    payload.audit_period_ending = hole((i) => pythonTime(ending(i)));
    payload.bandwidth = {};
  }
  return innerMessageSpec(
    hole((i) => `compute.${hostOf(i)}`),
    eventType,
    payload,
  );
}
