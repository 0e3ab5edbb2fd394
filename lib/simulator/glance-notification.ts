import type { JsonObject } from "../events/event.ts";
import { innerMessage, type RenderInput } from "./notification-context.ts";

/** glance's image notification: the image as the v2 API shows it, `size` in bytes (null until uploaded). */
export function glanceMessage(input: RenderInput): JsonObject {
  const { resource, step, truth, created } = input;
  const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
  const deleted = step.event_type === "image.delete";
  const uploaded = truth.state !== "queued";
  const payload: JsonObject = {
    id: resource.resource_id,
    name: String(resource.attributes.name),
    status: deleted ? "deleted" : truth.state,
    owner: truth.project_id,
    size: uploaded ? Number(resource.attributes.size_bytes) : null,
    virtual_size: null,
    disk_format: String(resource.attributes.disk_format),
    container_format: "bare",
    visibility: "private",
    protected: false,
    min_disk: 0,
    min_ram: 0,
    checksum: uploaded ? resource.resource_id.replaceAll("-", "") : null,
    os_hash_algo: uploaded ? "sha512" : null,
    tags: [],
    properties: {},
    created_at: iso(created.at),
    updated_at: iso(step.at),
    deleted,
    deleted_at: deleted ? iso(step.at) : null,
  };
  return innerMessage(input, "image.localhost", step.event_type, payload);
}
