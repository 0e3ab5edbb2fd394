import { Elysia } from "elysia";
import { isRfc3339 } from "../../../foundation/time/instant.ts";
import { bootImageId, type Flavor, flavorNamed, flavors } from "../catalog.ts";
import { checkToken, fault, isoZ, nextLink, paginate } from "./openstack-http.ts";
import type { LiveResource, PlatformView } from "./platform-view.ts";

/** The compute API's microversions: from 2.1 up to 2023.1's 2.95, past 2.47 (embedded flavors). */
export const computeVersions = { min: [2, 1], max: [2, 95] } as const;

type Version = readonly [number, number];

function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1];
}

/**
 * The microversion a request asks for (`OpenStack-API-Version: compute 2.x` or the older
 * `X-OpenStack-Nova-API-Version`), 2.1 when it names none; a Response for one out of range (406) or
 * unreadable (400), as nova answers.
 */
export function requestedMicroversion(request: Request): Version | Response {
  const modern = request.headers.get("openstack-api-version");
  const legacy = request.headers.get("x-openstack-nova-api-version");
  let text: string | null = null;
  if (modern !== null) {
    const match = /^\s*compute\s+(\S+)\s*$/i.exec(modern);
    text = match?.[1] ?? null;
    if (text === null && !/compute/i.test(modern)) text = "2.1";
  } else text = legacy?.trim() ?? "2.1";
  if (text === null) return fault(400, "badRequest", `Invalid API version request string ${modern}`);
  if (text.toLowerCase() === "latest") return computeVersions.max;
  const parts = /^(\d+)\.(\d+)$/.exec(text);
  if (parts === null) return fault(400, "badRequest", `Invalid API version request string ${text}`);
  const version: Version = [Number(parts[1]), Number(parts[2])];
  if (
    compareVersions(version, computeVersions.min) < 0 ||
    compareVersions(version, computeVersions.max) > 0
  ) {
    return fault(
      406,
      "computeFault",
      `Version ${text} is not supported by the API. Minimum is 2.1 and maximum is ${computeVersions.max.join(".")}.`,
    );
  }
  return version;
}

function versionHeaders(version: Version): Record<string, string> {
  const text = version.join(".");
  return {
    "openstack-api-version": `compute ${text}`,
    "x-openstack-nova-api-version": text,
    vary: "OpenStack-API-Version, X-OpenStack-Nova-API-Version",
  };
}

/** nova's status, vm_state and power state of a canonical instance state (decision 201, backwards). */
const shown: Readonly<Record<string, { status: string; vm: string; power: number }>> = {
  active: { status: "ACTIVE", vm: "active", power: 1 },
  shutoff: { status: "SHUTOFF", vm: "stopped", power: 4 },
  shelved: { status: "SHELVED", vm: "shelved", power: 4 },
  shelved_offloaded: { status: "SHELVED_OFFLOADED", vm: "shelved_offloaded", power: 4 },
  build: { status: "BUILD", vm: "building", power: 0 },
};

/** The status, vm_state and power state nova shows for a live instance. */
export function serverState(live: { truth: { state: string }; last: { event_type: string } }) {
  // Between finish_resize and its confirm or revert nova shows the instance as resized, awaiting
  // confirmation, running on the new flavor; lib/billing/oslo books that as active (decision 201).
  if (live.last.event_type === "compute.instance.finish_resize.end") {
    return { status: "VERIFY_RESIZE", vm: "resized", power: 1 };
  }
  return (
    shown[live.truth.state] ?? { status: live.truth.state.toUpperCase(), vm: live.truth.state, power: 0 }
  );
}

function flavorDocument(flavor: Flavor, version: Version, host: string) {
  if (compareVersions(version, [2, 47]) >= 0) {
    const embedded: Record<string, unknown> = {
      vcpus: flavor.vcpus,
      ram: flavor.memory_mb,
      disk: flavor.root_gb,
      ephemeral: flavor.ephemeral_gb,
      swap: 0,
      original_name: flavor.name,
      extra_specs: {},
    };
    return embedded;
  }
  return {
    id: flavor.id,
    links: [{ rel: "bookmark", href: `http://${host}/compute/flavors/${flavor.id}` }],
  };
}

function flavorListing(flavor: Flavor, version: Version, host: string) {
  const doc: Record<string, unknown> = {
    id: flavor.id,
    name: flavor.name,
    ram: flavor.memory_mb,
    disk: flavor.root_gb,
    vcpus: flavor.vcpus,
    "OS-FLV-EXT-DATA:ephemeral": flavor.ephemeral_gb,
    "OS-FLV-DISABLED:disabled": false,
    swap: compareVersions(version, [2, 75]) >= 0 ? 0 : "",
    rxtx_factor: 1.0,
    "os-flavor-access:is_public": true,
    links: [
      { rel: "self", href: `http://${host}/compute/v2.1/flavors/${flavor.id}` },
      { rel: "bookmark", href: `http://${host}/compute/flavors/${flavor.id}` },
    ],
  };
  if (compareVersions(version, [2, 55]) >= 0) doc.description = null;
  if (compareVersions(version, [2, 61]) >= 0) doc.extra_specs = {};
  return doc;
}

interface ServerInput {
  id: string;
  attributes: Record<string, string | number>;
  projectId: string;
  flavorName: string;
  created: number;
  updated: number;
  state: { status: string; vm: string; power: number };
  terminatedAt: number | null;
  volumes: string[];
}

function serverDocument(input: ServerInput, version: Version, host: string) {
  const flavor = flavorNamed(input.flavorName);
  const hostName = String(input.attributes.host);
  return {
    id: input.id,
    name: String(input.attributes.name),
    status: input.state.status,
    tenant_id: input.projectId,
    user_id: String(input.attributes.user_id),
    metadata: {},
    hostId: input.projectId.slice(0, 16) + hostName,
    image: {
      id: bootImageId,
      links: [{ rel: "bookmark", href: `http://${host}/compute/images/${bootImageId}` }],
    },
    flavor: flavorDocument(flavor, version, host),
    created: isoZ(input.created),
    updated: isoZ(input.updated),
    addresses: {},
    accessIPv4: "",
    accessIPv6: "",
    links: [
      { rel: "self", href: `http://${host}/compute/v2.1/servers/${input.id}` },
      { rel: "bookmark", href: `http://${host}/compute/servers/${input.id}` },
    ],
    "OS-DCF:diskConfig": "MANUAL",
    progress: 0,
    "OS-EXT-AZ:availability_zone": "nova",
    config_drive: "",
    key_name: null,
    "OS-SRV-USG:launched_at": `${isoZ(input.created + 30_000).slice(0, 19)}.000000`,
    "OS-SRV-USG:terminated_at":
      input.terminatedAt === null ? null : `${isoZ(input.terminatedAt).slice(0, 19)}.000000`,
    "OS-EXT-SRV-ATTR:host": hostName,
    "OS-EXT-SRV-ATTR:instance_name": `instance-${input.id.slice(0, 8)}`,
    "OS-EXT-SRV-ATTR:hypervisor_hostname": `${hostName}.cloud.example`,
    "OS-EXT-STS:task_state": null,
    "OS-EXT-STS:vm_state": input.state.vm,
    "OS-EXT-STS:power_state": input.state.power,
    "os-extended-volumes:volumes_attached": input.volumes.map((id) => ({ id, delete_on_termination: false })),
    security_groups: [{ name: "default" }],
  };
}

/** Volumes attached to each instance at `at`. */
function attachedVolumes(view: PlatformView, at: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const volume of view.live("volume", at)) {
    const instance = String(volume.resource.attributes.instance_id ?? "");
    if (instance === "" || volume.truth.state !== "in-use") continue;
    out.set(instance, [...(out.get(instance) ?? []), volume.resource.resource_id]);
  }
  return out;
}

function hostOf(request: Request): string {
  return request.headers.get("host") ?? new URL(request.url).host;
}

/** The server document of a live instance. */
function liveServer(
  live: LiveResource,
  volumes: ReadonlyMap<string, string[]>,
  version: Version,
  host: string,
) {
  return serverDocument(
    {
      id: live.resource.resource_id,
      attributes: live.resource.attributes,
      projectId: live.truth.project_id,
      flavorName: String(live.truth.size.flavor),
      created: live.created.at,
      updated: live.updatedAt,
      state: serverState(live),
      terminatedAt: null,
      volumes: volumes.get(live.resource.resource_id) ?? [],
    },
    version,
    host,
  );
}

/** The token and the microversion of a compute request, or the Response refusing it. */
function computeRequest(request: Request, token: string): Version | Response {
  return checkToken(request, token) ?? requestedMicroversion(request);
}

/**
 * nova at the virtual clock: the version document, `servers/detail` (live servers, or with
 * `deleted=true` and `changes-since` the servers deleted since then) and `flavors/detail`, with
 * microversions (docs/simulator.md lists the API reference each shape follows).
 */
export function computeRoutes(deps: { view: PlatformView; token: string; now: () => number }) {
  const { view, token } = deps;
  return new Elysia({ name: "svc-simulator-compute" })
    .get("/compute/v2.1", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const host = hostOf(request);
      return {
        version: {
          id: "v2.1",
          status: "CURRENT",
          version: computeVersions.max.join("."),
          min_version: computeVersions.min.join("."),
          updated: "2013-07-23T11:33:21Z",
          links: [
            { rel: "self", href: `http://${host}/compute/v2.1/` },
            { rel: "describedby", type: "text/html", href: "http://docs.openstack.org/" },
          ],
          "media-types": [
            { base: "application/json", type: "application/vnd.openstack.compute+json;version=2.1" },
          ],
        },
      };
    })
    .get("/compute/v2.1/flavors/detail", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const version = requestedMicroversion(request);
      if (version instanceof Response) return version;
      const host = hostOf(request);
      return Response.json(
        { flavors: flavors.map((f) => flavorListing(f, version, host)) },
        { headers: versionHeaders(version) },
      );
    })
    .get("/compute/v2.1/servers/detail", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const version = requestedMicroversion(request);
      if (version instanceof Response) return version;
      const query = new URL(request.url).searchParams;
      const since = query.get("changes-since");
      if (since !== null && !isRfc3339(since)) {
        return fault(400, "badRequest", "changes-since must be an RFC 3339 instant");
      }
      const at = view.clamp(deps.now());
      const host = hostOf(request);
      const volumes = attachedVolumes(view, at);
      const deleted = query.get("deleted")?.toLowerCase();
      const servers =
        since !== null && (deleted === "true" || deleted === "1")
          ? view.deleted("instance", Date.parse(since.replace(" ", "T")), at).map((d) =>
              serverDocument(
                {
                  id: d.resource.resource_id,
                  attributes: d.resource.attributes,
                  projectId: d.truth.project_id,
                  flavorName: String(d.truth.size.flavor),
                  created: d.created.at,
                  updated: d.deletedAt,
                  state: { status: "DELETED", vm: "deleted", power: 0 },
                  terminatedAt: d.deletedAt,
                  volumes: [],
                },
                version,
                host,
              ),
            )
          : view.live("instance", at).map((live) => liveServer(live, volumes, version, host));
      const page = paginate(servers, query, { default: 1000, max: 1000 });
      if (page instanceof Response) return page;
      const body: Record<string, unknown> = { servers: page.items };
      if (page.next !== null) body.servers_links = [{ rel: "next", href: nextLink(request, page.next) }];
      return Response.json(body, { headers: versionHeaders(version) });
    })
    .use(lookupRoutes(deps));
}

/**
 * What a client asks to show one server or flavor (decision 289): `servers/{id}` (a live server at the
 * clock; nova's 404 otherwise), `servers` (ids and names, with nova's `name` filter, the lookup a
 * client falls back to for a name), `flavors/{id}` and `flavors/{id}/os-extra_specs` (which the
 * client asks for every flavor whose listing shows no `extra_specs`: none here).
 */
function lookupRoutes(deps: { view: PlatformView; token: string; now: () => number }) {
  const { view, token } = deps;
  const flavorById = (id: string) => flavors.find((f) => f.id === id);
  return new Elysia({ name: "svc-simulator-compute-lookups" })
    .get("/compute/v2.1/servers", ({ request }) => {
      const version = computeRequest(request, token);
      if (version instanceof Response) return version;
      const host = hostOf(request);
      const name = new URL(request.url).searchParams.get("name");
      const servers = view
        .live("instance", view.clamp(deps.now()))
        .filter((live) => name === null || String(live.resource.attributes.name).includes(name))
        .map((live) => {
          const id = live.resource.resource_id;
          return {
            id,
            name: String(live.resource.attributes.name),
            links: [
              { rel: "self", href: `http://${host}/compute/v2.1/servers/${id}` },
              { rel: "bookmark", href: `http://${host}/compute/servers/${id}` },
            ],
          };
        });
      return Response.json({ servers }, { headers: versionHeaders(version) });
    })
    .get("/compute/v2.1/servers/:id", ({ request, params }) => {
      const version = computeRequest(request, token);
      if (version instanceof Response) return version;
      const at = view.clamp(deps.now());
      const live = view.live("instance", at).find((l) => l.resource.resource_id === params.id);
      if (live === undefined) return fault(404, "itemNotFound", `Instance ${params.id} could not be found.`);
      const server = liveServer(live, attachedVolumes(view, at), version, hostOf(request));
      return Response.json({ server }, { headers: versionHeaders(version) });
    })
    .get("/compute/v2.1/flavors/:id", ({ request, params }) => {
      const version = computeRequest(request, token);
      if (version instanceof Response) return version;
      const flavor = flavorById(params.id);
      if (flavor === undefined) return fault(404, "itemNotFound", `Flavor ${params.id} could not be found.`);
      return Response.json(
        { flavor: flavorListing(flavor, version, hostOf(request)) },
        { headers: versionHeaders(version) },
      );
    })
    .get("/compute/v2.1/flavors/:id/os-extra_specs", ({ request, params }) => {
      const version = computeRequest(request, token);
      if (version instanceof Response) return version;
      if (flavorById(params.id) === undefined)
        return fault(404, "itemNotFound", `Flavor ${params.id} could not be found.`);
      return Response.json({ extra_specs: {} }, { headers: versionHeaders(version) });
    });
}
