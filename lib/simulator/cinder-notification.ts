import type { JsonObject } from "../events/event.ts";
import { innerMessage, pythonTime, type RenderInput } from "./notification-context.ts";

/**
 * A volume usage notification as cinder's `volume_utils._usage_from_volume` builds it: `volume_type` is
 * the type's id, `size` in GiB, the owner in `tenant_id` (after a transfer, the new owner).
 */
export function cinderMessage(input: RenderInput): JsonObject {
  const { resource, step, truth, created, tenant } = input;
  const attachedTo = String(resource.attributes.instance_id ?? "");
  const deleted = step.event_type === "volume.delete.end";
  const status = deleted ? "deleted" : truth.state;
  const payload: JsonObject = {
    tenant_id: truth.project_id,
    host: "block-01@lvm#lvm",
    user_id: tenant.user_id,
    availability_zone: "nova",
    volume_id: resource.resource_id,
    volume_type: String(truth.size.type),
    display_name: String(resource.attributes.name),
    launched_at: pythonTime(created.at + 2_000),
    created_at: pythonTime(created.at),
    status,
    snapshot_id: null,
    size: Number(truth.size.size_gb),
    replication_status: null,
    replication_extended_status: null,
    replication_driver_data: null,
    metadata: [],
    volume_attachment:
      status === "in-use" && attachedTo !== ""
        ? [{ instance_uuid: attachedTo, attach_status: "attached", mountpoint: "/dev/vdb" }]
        : [],
  };
  return innerMessage(input, "volume.block-01@lvm", step.event_type, payload);
}
