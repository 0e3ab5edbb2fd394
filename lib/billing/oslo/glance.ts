import type { MappedChange, ServiceMapper } from "./mapped-change.ts";
import { firstString, numberAt, pick, stringAt } from "./payload-fields.ts";

const booked: ReadonlySet<string> = new Set([
  "image.create",
  "image.update",
  "image.upload",
  "image.activate",
  "image.deactivate",
  "image.reactivate",
  "image.delete",
]);

const providerMembers = [
  "name",
  "status",
  "size",
  "virtual_size",
  "disk_format",
  "container_format",
  "visibility",
  "checksum",
  "created_at",
] as const;

const bytesPerGb = 1024 ** 3;

/**
 * glance's image notifications. `image.create` opens the history (a queued image of size 0 until its
 * data is uploaded), `image.upload` and `image.activate` book the stored size, `image.delete` ends it.
 * Size is in GiB, exact: glance sends bytes.
 */
export const mapGlance: ServiceMapper = (eventType, payload, raw) => {
  if (!booked.has(eventType)) return "not a booked image notification";
  const change: MappedChange = {
    resource_type: "image",
    resource_id: stringAt(payload, "id") ?? "",
    project_id:
      firstString(payload, "owner") ?? firstString(raw, "_context_project_id", "_context_tenant") ?? "",
    provider: pick(payload, providerMembers),
  };
  if (eventType === "image.delete") return change;
  change.state = (stringAt(payload, "status") ?? "").toLowerCase();
  change.size = { size_gb: (numberAt(payload, "size") ?? 0) / bytesPerGb };
  // The disk format a price may be chosen by (docs/pricing-model.md#prices-by-attribute), when glance states one.
  const format = stringAt(payload, "disk_format");
  if (format !== null && format !== "") change.size.disk_format = format;
  return change;
};
