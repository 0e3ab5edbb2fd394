import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { numberAt, pick, stringAt, usageProjectId } from "./payload-fields.ts";

const providerMembers = [
  "status",
  "display_name",
  "availability_zone",
  "host",
  "created_at",
  "launched_at",
  "snapshot_id",
  "replication_status",
  "volume_attachment",
  "metadata",
] as const;

/**
 * The type a volume without one is booked under: cinder sends `volume_type: null` for it (volumes
 * created before a deployment had types, or with none requested), and since Train cinder itself names
 * the type such volumes get `__DEFAULT__`. An empty type would be refused by the volume size schema,
 * leaving the volume unbilled (decision 239).
 */
export const untypedVolumeType = "__DEFAULT__";

/**
 * cinder's volume usage notifications (`volume_utils.notify_about_volume_usage`). Every `volume.*`
 * notification is billable (docs/oslo-mapping.md#what-each-service-sends-and-what-we-book) except the `.start` half of an operation, which announces a
 * change that has not happened yet. The size carries the volume type's id as cinder sends it: ids become
 * names only through reconciliation (docs/reporting-api.md#size-names).
 */
export const mapCinder: ServiceMapper = (eventType, payload, raw) => {
  if (!eventType.startsWith("volume.")) return "not a volume notification";
  if (eventType.endsWith(".start")) return "the .start half of a volume operation";
  const change: MappedChange = {
    resource_type: "volume",
    resource_id: stringAt(payload, "volume_id") ?? "",
    project_id: usageProjectId(payload, raw),
    provider: pick(payload, providerMembers),
  };
  if (eventType === "volume.delete.end") return change;
  change.state = stringAt(payload, "status") ?? "";
  const type = stringAt(payload, "volume_type") ?? "";
  change.size = { size_gb: numberAt(payload, "size") ?? 0, type: type === "" ? untypedVolumeType : type };
  return change;
};
