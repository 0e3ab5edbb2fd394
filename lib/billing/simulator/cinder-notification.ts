import { hole, type Spec } from "./message-template.ts";
import { innerMessageSpec, pythonTime, type RenderInput } from "./notification-context.ts";

const statusOf = (input: RenderInput) =>
  input.step.event_type === "volume.delete.end" ? "deleted" : input.truth.state;

/** Whether the notification lists an attachment: its variant (decision 248). */
export function cinderAttached(input: RenderInput): boolean {
  return statusOf(input) === "in-use" && String(input.resource.attributes.instance_id ?? "") !== "";
}

/**
 * A volume usage notification as cinder's `volume_utils._usage_from_volume` builds it: `volume_type` is
 * the type's id, `size` in GiB, the owner in `tenant_id` (after a transfer, the new owner).
 */
export function cinderSpec(eventType: string, attached: boolean): Spec<RenderInput> {
  const payload: Spec<RenderInput> = {
    tenant_id: hole((i) => i.truth.project_id),
    host: "block-01@lvm#lvm",
    user_id: hole((i) => i.tenant.user_id),
    availability_zone: "nova",
    volume_id: hole((i) => i.resource.resource_id),
    volume_type: hole((i) => String(i.truth.size.type)),
    display_name: hole((i) => String(i.resource.attributes.name)),
    launched_at: hole((i) => pythonTime(i.created.at + 2_000)),
    created_at: hole((i) => pythonTime(i.created.at)),
    status: hole(statusOf),
    snapshot_id: null,
    size: hole((i) => Number(i.truth.size.size_gb)),
    replication_status: null,
    replication_extended_status: null,
    replication_driver_data: null,
    metadata: [],
    volume_attachment: attached
      ? [
          {
            instance_uuid: hole((i) => String(i.resource.attributes.instance_id ?? "")),
            attach_status: "attached",
            mountpoint: "/dev/vdb",
          },
        ]
      : [],
  };
  return innerMessageSpec("volume.block-01@lvm", eventType, payload);
}
