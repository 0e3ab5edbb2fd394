import { hole, type Spec } from "./message-template.ts";
import { innerMessageSpec, type RenderInput } from "./notification-context.ts";

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const uploaded = (input: RenderInput) => input.truth.state !== "queued";

/** glance's image notification: the image as the v2 API shows it, `size` in bytes (null until uploaded). */
export function glanceSpec(eventType: string): Spec<RenderInput> {
  const deleted = eventType === "image.delete";
  const payload: Spec<RenderInput> = {
    id: hole((i) => i.resource.resource_id),
    name: hole((i) => String(i.resource.attributes.name)),
    status: deleted ? "deleted" : hole((i) => i.truth.state),
    owner: hole((i) => i.truth.project_id),
    size: hole((i) => (uploaded(i) ? Number(i.resource.attributes.size_bytes) : null)),
    virtual_size: null,
    disk_format: hole((i) => String(i.resource.attributes.disk_format)),
    container_format: "bare",
    visibility: "private",
    protected: false,
    min_disk: 0,
    min_ram: 0,
    checksum: hole((i) => (uploaded(i) ? i.resource.resource_id.replaceAll("-", "") : null)),
    os_hash_algo: hole((i) => (uploaded(i) ? "sha512" : null)),
    tags: [],
    properties: {},
    created_at: hole((i) => iso(i.created.at)),
    updated_at: hole((i) => iso(i.step.at)),
    deleted,
    deleted_at: deleted ? hole((i) => iso(i.step.at)) : null,
  };
  return innerMessageSpec("image.localhost", eventType, payload);
}
