import { Elysia } from "elysia";
import { checkToken, isoZ, paginate } from "./openstack-http.ts";
import type { LiveResource, PlatformView } from "./platform-view.ts";

function imageDocument(live: LiveResource) {
  const { resource, truth } = live;
  const id = resource.resource_id;
  const uploaded = truth.state !== "queued";
  const hash = id.replaceAll("-", "");
  return {
    id,
    name: String(resource.attributes.name),
    status: truth.state,
    owner: truth.project_id,
    size: uploaded ? Number(resource.attributes.size_bytes) : null,
    virtual_size: null,
    disk_format: String(resource.attributes.disk_format),
    container_format: "bare",
    visibility: "private",
    protected: false,
    os_hidden: false,
    min_disk: 0,
    min_ram: 0,
    checksum: uploaded ? hash : null,
    os_hash_algo: uploaded ? "sha512" : null,
    os_hash_value: uploaded ? hash.repeat(4) : null,
    tags: [],
    created_at: isoZ(live.created.at),
    updated_at: isoZ(live.updatedAt),
    self: `/v2/images/${id}`,
    file: `/v2/images/${id}/file`,
    schema: "/v2/schemas/image",
  };
}

/**
 * glance at the virtual clock: the version list and `v2/images`, 25 a page unless `limit` asks for
 * more (at most 1000), with glance's relative `next` link (`/v2/images?marker=...`), which a client
 * joins to the image endpoint.
 */
export function imageRoutes(deps: { view: PlatformView; token: string; now: () => number }) {
  const { view, token } = deps;
  return new Elysia({ name: "svc-simulator-image" })
    .get("/image", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const host = request.headers.get("host") ?? new URL(request.url).host;
      const versions = ["2.16", "2.15", "2.9", "2.0"];
      return {
        versions: versions.map((v, i) => ({
          id: `v${v}`,
          status: i === 0 ? "CURRENT" : "SUPPORTED",
          links: [{ rel: "self", href: `http://${host}/image/v2/` }],
        })),
      };
    })
    .get("/image/v2/images", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const at = view.clamp(deps.now());
      const items = view.live("image", at).map(imageDocument);
      const query = new URL(request.url).searchParams;
      const page = paginate(items, query, { default: 25, max: 1000 });
      if (page instanceof Response) return page;
      const body: Record<string, unknown> = {
        images: page.items,
        first: "/v2/images",
        schema: "/v2/schemas/images",
      };
      if (page.next !== null) {
        const next = new URLSearchParams(query);
        next.set("marker", page.next);
        body.next = `/v2/images?${next.toString()}`;
      }
      return body;
    });
}
