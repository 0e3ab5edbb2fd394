import { Elysia } from "elysia";
import { volumeTypes } from "../catalog.ts";
import type { ResourceType } from "../month.ts";
import { checkToken, isoMicros, nextLink, paginate } from "./openstack-http.ts";
import type { LiveResource, PlatformView } from "./platform-view.ts";

function volumeDocument(live: LiveResource, host: string) {
  const { resource, truth } = live;
  const id = resource.resource_id;
  const type = volumeTypes.find((t) => t.id === truth.size.type);
  const instance = String(resource.attributes.instance_id ?? "");
  const attached = truth.state === "in-use" && instance !== "";
  return {
    id,
    name: String(resource.attributes.name),
    status: truth.state,
    size: Number(truth.size.size_gb),
    // cinder shows the type's name here and its id in volume_type_id (3.63).
    volume_type: type?.name ?? null,
    volume_type_id: type?.id ?? null,
    "os-vol-tenant-attr:tenant_id": truth.project_id,
    user_id: String(resource.attributes.user_id),
    attachments: attached
      ? [
          {
            id,
            attachment_id: `${id.slice(0, 24)}a77ac4ed0000`,
            volume_id: id,
            server_id: instance,
            host_name: null,
            device: "/dev/vdb",
            attached_at: isoMicros(live.created.at + 5_000),
          },
        ]
      : [],
    availability_zone: "nova",
    bootable: "false",
    encrypted: false,
    multiattach: false,
    created_at: isoMicros(live.created.at),
    updated_at: isoMicros(live.updatedAt),
    description: null,
    metadata: {},
    snapshot_id: null,
    source_volid: null,
    consistencygroup_id: null,
    group_id: null,
    replication_status: null,
    migration_status: null,
    "os-vol-host-attr:host": "block-01@lvm#lvm",
    "os-vol-mig-status-attr:migstat": null,
    "os-vol-mig-status-attr:name_id": null,
    links: [
      { rel: "self", href: `http://${host}/volume/v3/volumes/${id}` },
      { rel: "bookmark", href: `http://${host}/volume/volumes/${id}` },
    ],
  };
}

/** A snapshot of `snapshots/detail` (microversion 3.65's members). */
function snapshotDocument(live: LiveResource) {
  const { resource, truth } = live;
  return {
    id: resource.resource_id,
    name: String(resource.attributes.name),
    description: null,
    status: truth.state,
    size: Number(truth.size.size_gb),
    volume_id: String(resource.attributes.volume_id),
    metadata: {},
    created_at: isoMicros(live.created.at),
    updated_at: isoMicros(live.updatedAt),
    "os-extended-snapshot-attributes:project_id": truth.project_id,
    "os-extended-snapshot-attributes:progress": "100%",
    user_id: String(resource.attributes.user_id),
    group_snapshot_id: null,
    consumes_quota: true,
  };
}

/** A backup of `backups/detail` (microversion 3.64's members). */
function backupDocument(live: LiveResource, host: string) {
  const { resource, truth } = live;
  const id = resource.resource_id;
  return {
    id,
    name: String(resource.attributes.name),
    description: null,
    status: truth.state,
    size: Number(truth.size.size_gb),
    volume_id: String(resource.attributes.volume_id),
    snapshot_id: null,
    container: "volumebackups",
    availability_zone: "nova",
    created_at: isoMicros(live.created.at),
    updated_at: isoMicros(live.updatedAt),
    data_timestamp: isoMicros(live.created.at),
    fail_reason: null,
    has_dependent_backups: false,
    is_incremental: false,
    object_count: Math.max(1, Math.ceil(Number(truth.size.size_gb) / 0.05)),
    "os-backup-project-attr:project_id": truth.project_id,
    user_id: String(resource.attributes.user_id),
    metadata: {},
    encryption_key_id: null,
    links: [
      { rel: "self", href: `http://${host}/volume/v3/backups/${id}` },
      { rel: "bookmark", href: `http://${host}/volume/backups/${id}` },
    ],
  };
}

type Deps = { view: PlatformView; token: string; now: () => number };

/**
 * A cinder `detail` listing of the live resources of one type at the clock, under `key`, in pages of
 * up to 1000 with `<key>_links`.
 */
function cinderListing(
  deps: Deps,
  type: ResourceType,
  key: string,
  document: (live: LiveResource, host: string) => { id: string },
) {
  return ({ request }: { request: Request }) => {
    const refused = checkToken(request, deps.token);
    if (refused !== null) return refused;
    const host = request.headers.get("host") ?? new URL(request.url).host;
    const items = deps.view.live(type, deps.view.clamp(deps.now())).map((live) => document(live, host));
    const page = paginate(items, new URL(request.url).searchParams, { default: 1000, max: 1000 });
    if (page instanceof Response) return page;
    const body: Record<string, unknown> = { [key]: page.items };
    if (page.next !== null) body[`${key}_links`] = [{ rel: "next", href: nextLink(request, page.next) }];
    return body;
  };
}

/**
 * cinder v3 at the virtual clock: `volumes/detail` (every tenant's volumes, as an admin's
 * `all_tenants` listing), `snapshots/detail` and `backups/detail` the same way (decision 288), and
 * `types`, the three fixed types with ids identical in every run.
 */
export function volumeRoutes(deps: Deps) {
  const { token } = deps;
  return new Elysia({ name: "svc-simulator-volume" })
    .get("/volume/v3/volumes/detail", cinderListing(deps, "volume", "volumes", volumeDocument))
    .get("/volume/v3/snapshots/detail", cinderListing(deps, "volume_snapshot", "snapshots", snapshotDocument))
    .get("/volume/v3/backups/detail", cinderListing(deps, "volume_backup", "backups", backupDocument))
    .get("/volume/v3/types", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      return {
        volume_types: volumeTypes.map((t) => ({
          id: t.id,
          name: t.name,
          description: null,
          is_public: true,
          "os-volume-type-access:is_public": true,
          extra_specs: {},
          qos_specs_id: null,
        })),
      };
    });
}
