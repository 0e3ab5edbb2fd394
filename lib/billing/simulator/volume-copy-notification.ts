import { hole, type Spec } from "./message-template.ts";
import { innerMessageSpec, type RenderInput } from "./notification-context.ts";

/** cinder writes `created_at` with Python's `isoformat()` of an aware datetime. */
const isoformat = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}+00:00`;

const statusOf = (input: RenderInput, deleteType: string) =>
  input.step.event_type === deleteType ? "deleted" : input.truth.state;

/**
 * A snapshot usage notification as cinder's `volume_utils._usage_from_snapshot` builds it: the
 * snapshot's id, its volume and that volume's size in GiB, the owner in `tenant_id`; publisher
 * `snapshot.<host>`.
 */
export function snapshotSpec(eventType: string): Spec<RenderInput> {
  const payload: Spec<RenderInput> = {
    tenant_id: hole((i) => i.truth.project_id),
    user_id: hole((i) => i.tenant.user_id),
    availability_zone: "nova",
    volume_id: hole((i) => String(i.resource.attributes.volume_id)),
    volume_size: hole((i) => Number(i.truth.size.size_gb)),
    snapshot_id: hole((i) => i.resource.resource_id),
    display_name: hole((i) => String(i.resource.attributes.name)),
    created_at: hole((i) => isoformat(i.created.at)),
    status: hole((i) => statusOf(i, "snapshot.delete.end")),
    deleted: eventType === "snapshot.delete.end" ? "True" : "",
    metadata: "",
  };
  return innerMessageSpec("snapshot.block-01@lvm", eventType, payload);
}

/**
 * A backup usage notification as cinder's `volume_utils._usage_from_backup` builds it: the backup's
 * id, its volume, `size` in GiB (the volume's), the owner in `tenant_id`, the driver that stores it;
 * publisher `backup.<host>`.
 */
export function backupSpec(eventType: string): Spec<RenderInput> {
  const payload: Spec<RenderInput> = {
    tenant_id: hole((i) => i.truth.project_id),
    user_id: hole((i) => i.tenant.user_id),
    availability_zone: "nova",
    backup_id: hole((i) => i.resource.resource_id),
    host: "backup-01",
    display_name: hole((i) => String(i.resource.attributes.name)),
    created_at: hole((i) => isoformat(i.created.at)),
    status: hole((i) => statusOf(i, "backup.delete.end")),
    volume_id: hole((i) => String(i.resource.attributes.volume_id)),
    size: hole((i) => Number(i.truth.size.size_gb)),
    service_metadata: hole(
      (i) => `volume_${String(i.resource.attributes.volume_id)}/backup_${i.resource.resource_id}`,
    ),
    service: "cinder.backup.drivers.swift.SwiftBackupDriver",
    fail_reason: null,
    parent_id: null,
    num_dependent_backups: 0,
    snapshot_id: null,
  };
  return innerMessageSpec("backup.backup-01", eventType, payload);
}
