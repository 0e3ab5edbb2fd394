import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { numberAt, pick, stringAt, usageProjectId } from "./payload-fields.ts";

/** What tells one kind of copy apart: its type, its notification prefix, its id and size members. */
interface CopyKind {
  resource_type: string;
  prefix: string;
  id: string;
  size: string;
  provider: readonly string[];
}

/**
 * cinder's snapshot usage notifications (`cinder/volume/volume_utils.py` `_usage_from_snapshot`): the
 * snapshot's `snapshot_id`, `volume_id`, `volume_size` in GiB, `tenant_id`, `status`.
 */
const snapshot: CopyKind = {
  resource_type: "volume_snapshot",
  prefix: "snapshot.",
  id: "snapshot_id",
  size: "volume_size",
  provider: ["status", "volume_id", "display_name", "availability_zone", "created_at"],
};

/**
 * cinder's backup usage notifications (`_usage_from_backup`): `backup_id`, `volume_id`, `size` in GiB
 * (the volume's), `tenant_id`, `status`, and the backup's kind (`parent_id`, `snapshot_id`).
 */
const backup: CopyKind = {
  resource_type: "volume_backup",
  prefix: "backup.",
  id: "backup_id",
  size: "size",
  provider: [
    "status",
    "volume_id",
    "display_name",
    "availability_zone",
    "created_at",
    "parent_id",
    "snapshot_id",
    "service",
  ],
};

/**
 * Snapshots and backups as cinder's volumes are booked (decision 281): every notification of the
 * kind but the `.start` half of an operation; `create.end` creates, `delete.end` deletes, any other
 * (a backup's `restore.end`, a usage audit's `exists`) states the copy as it is.
 */
function copyMapper(kind: CopyKind): ServiceMapper {
  return (eventType, payload, raw) => {
    if (!eventType.startsWith(kind.prefix)) return `not a ${kind.prefix.slice(0, -1)} notification`;
    if (eventType.endsWith(".start")) return `the .start half of a ${kind.prefix.slice(0, -1)} operation`;
    const change: MappedChange = {
      resource_type: kind.resource_type,
      resource_id: stringAt(payload, kind.id) ?? "",
      project_id: usageProjectId(payload, raw),
      provider: pick(payload, kind.provider),
    };
    if (eventType === `${kind.prefix}delete.end`) return change;
    change.state = stringAt(payload, "status") ?? "";
    change.size = { size_gb: numberAt(payload, kind.size) ?? 0 };
    return change;
  };
}

export const mapCinderSnapshot = copyMapper(snapshot);
export const mapCinderBackup = copyMapper(backup);
