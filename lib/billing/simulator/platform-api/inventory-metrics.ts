import { Elysia } from "elysia";
import { compare } from "../../../foundation/collections/compare.ts";
import { flavorNamed, projectLimits, volumeTypes } from "../catalog.ts";
import { serverState } from "./compute-routes.ts";
import type { LiveResource, PlatformView } from "./platform-view.ts";

type Labels = Record<string, string>;

interface Family {
  name: string;
  help: string;
  samples: { labels: Labels; value: number }[];
}

function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function render(families: readonly Family[]): string {
  const out: string[] = [];
  for (const family of families) {
    out.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} gauge`);
    for (const { labels, value } of family.samples) {
      const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
      out.push(`${family.name}${pairs.length === 0 ? "" : `{${pairs.join(",")}}`} ${value}`);
    }
  }
  return `${out.join("\n")}\n`;
}

/**
 * The inventory exposition at instant `at` (docs/simulator.md#inventory-endpoint): one gauge per live
 * resource, each tenant's limits and usage, and the cloud's totals, in the names of the OpenStack
 * exporter the platform's telemetry scrapes. Id, uuid and name of a resource are all its id. An
 * instance's vcpus and memory stop counting against its tenant once shelved and offloaded, as nova
 * counts them (its cores and RAM are released); it still counts as an instance.
 */
export function inventoryExposition(view: PlatformView, at: number): string {
  const live: LiveInventory = {
    servers: view.live("instance", at),
    volumes: view.live("volume", at),
    addresses: view.live("floating_ip", at),
    images: view.live("image", at),
    balancers: view.live("loadbalancer", at),
  };
  return render([
    ...resourceFamilies(live),
    ...limitFamilies(tenantUsage(view, live.servers)),
    ...cloudFamilies(view, live),
  ]);
}

/** What lives at the instant, by type. */
interface LiveInventory {
  servers: LiveResource[];
  volumes: LiveResource[];
  addresses: LiveResource[];
  images: LiveResource[];
  balancers: LiveResource[];
}

interface Usage {
  instances: number;
  vcpus: number;
  memory: number;
}

/** Each tenant's usage, in tenant order. */
function tenantUsage(view: PlatformView, servers: readonly LiveResource[]): [string, Usage][] {
  const usage = new Map(view.tenants.map((t) => [t.project_id, { instances: 0, vcpus: 0, memory: 0 }]));
  for (const server of servers) {
    const used = usage.get(server.truth.project_id);
    if (used === undefined) continue;
    used.instances += 1;
    if (server.truth.state === "shelved_offloaded") continue;
    const flavor = flavorNamed(String(server.truth.size.flavor));
    used.vcpus += flavor.vcpus;
    used.memory += flavor.memory_mb;
  }
  return [...usage.entries()].sort(([a], [b]) => compare(a, b));
}

/** One gauge per live resource (and per router a live floating IP goes through). */
function resourceFamilies({ servers, volumes, addresses, images, balancers }: LiveInventory): Family[] {
  const routers = new Map<string, string>();
  for (const address of addresses) {
    routers.set(String(address.resource.attributes.router_id), address.truth.project_id);
  }
  const volumeLabels = (v: LiveResource) => ({
    id: v.resource.resource_id,
    name: v.resource.resource_id,
    tenant_id: v.truth.project_id,
  });
  return [
    {
      name: "platform_a_nova_server_status",
      help: "A live server, labelled with its status and flavor.",
      samples: servers.map((s) => {
        const id = s.resource.resource_id;
        return {
          labels: {
            id,
            uuid: id,
            name: id,
            tenant_id: s.truth.project_id,
            status: serverState(s).status,
            flavor_id: flavorNamed(String(s.truth.size.flavor)).id,
          },
          value: 1,
        };
      }),
    },
    {
      name: "platform_a_cinder_volume_status",
      help: "A live volume, labelled with its status and type.",
      samples: volumes.map((v) => ({
        labels: {
          ...volumeLabels(v),
          status: v.truth.state,
          volume_type: typeName(String(v.truth.size.type)),
        },
        value: 1,
      })),
    },
    {
      name: "platform_a_cinder_volume_gb",
      help: "The size of a live volume in GiB.",
      samples: volumes.map((v) => ({
        labels: { ...volumeLabels(v), volume_type: typeName(String(v.truth.size.type)) },
        value: Number(v.truth.size.size_gb),
      })),
    },
    {
      name: "platform_a_glance_image_bytes",
      help: "The stored size of a live image in bytes (0 until uploaded).",
      samples: images.map((i) => ({
        labels: { id: i.resource.resource_id, name: i.resource.resource_id, tenant_id: i.truth.project_id },
        value: i.truth.state === "queued" ? 0 : Number(i.resource.attributes.size_bytes),
      })),
    },
    {
      name: "platform_a_neutron_floating_ip",
      help: "A live floating IP, labelled with its status.",
      samples: addresses.map((a) => ({
        labels: {
          id: a.resource.resource_id,
          project_id: a.truth.project_id,
          status: a.truth.state.toUpperCase(),
        },
        value: 1,
      })),
    },
    {
      name: "platform_a_neutron_router",
      help: "A router a live floating IP is reached through.",
      samples: [...routers.entries()]
        .sort(([a], [b]) => compare(a, b))
        .map(([id, project]) => ({ labels: { id, project_id: project, status: "ACTIVE" }, value: 1 })),
    },
    {
      name: "platform_a_loadbalancer_loadbalancer_status",
      help: "A live load balancer, labelled with its provisioning and operating status.",
      samples: balancers.map((l) => ({
        labels: {
          id: l.resource.resource_id,
          name: l.resource.resource_id,
          project_id: l.truth.project_id,
          provisioning_status: l.truth.state.toUpperCase(),
          operating_status: "ONLINE",
        },
        value: 1,
      })),
    },
  ];
}

/** Each tenant's usage beside its limit (`catalog.ts` projectLimits). */
function limitFamilies(tenants: readonly [string, Usage][]): Family[] {
  const perTenant = (pick: (u: Usage) => number) =>
    tenants.map(([tenant, used]) => ({ labels: { tenant_id: tenant }, value: pick(used) }));
  const limit = (value: number) => tenants.map(([tenant]) => ({ labels: { tenant_id: tenant }, value }));
  return [
    {
      name: "platform_a_nova_limits_instances_used",
      help: "Live instances of a tenant.",
      samples: perTenant((u) => u.instances),
    },
    {
      name: "platform_a_nova_limits_instances_max",
      help: "A tenant's instance limit.",
      samples: limit(projectLimits.instances),
    },
    {
      name: "platform_a_nova_limits_vcpus_used",
      help: "vCPUs of a tenant's live instances.",
      samples: perTenant((u) => u.vcpus),
    },
    {
      name: "platform_a_nova_limits_vcpus_max",
      help: "A tenant's vCPU limit.",
      samples: limit(projectLimits.vcpus),
    },
    {
      name: "platform_a_nova_limits_memory_used",
      help: "Memory of a tenant's live instances in MB.",
      samples: perTenant((u) => u.memory),
    },
    {
      name: "platform_a_nova_limits_memory_max",
      help: "A tenant's memory limit in MB.",
      samples: limit(projectLimits.memory_mb),
    },
  ];
}

/** The cloud's projects and its live totals. */
function cloudFamilies(view: PlatformView, live: LiveInventory): Family[] {
  const count = (value: number) => [{ labels: {}, value }];
  return [
    {
      name: "platform_a_identity_projects",
      help: "Projects of the cloud.",
      samples: count(view.tenants.length),
    },
    {
      name: "platform_a_identity_project_info",
      help: "A project of the cloud.",
      samples: [...view.tenants]
        .sort((a, b) => compare(a.project_id, b.project_id))
        .map((t) => ({
          labels: { id: t.project_id, name: t.name, domain_id: "default", enabled: "true" },
          value: 1,
        })),
    },
    {
      name: "platform_a_nova_total_vms",
      help: "Live instances of the cloud.",
      samples: count(live.servers.length),
    },
    {
      name: "platform_a_cinder_volumes",
      help: "Live volumes of the cloud.",
      samples: count(live.volumes.length),
    },
    {
      name: "platform_a_neutron_floating_ips",
      help: "Live floating IPs of the cloud.",
      samples: count(live.addresses.length),
    },
    {
      name: "platform_a_glance_images",
      help: "Live images of the cloud.",
      samples: count(live.images.length),
    },
    {
      name: "platform_a_loadbalancer_total_loadbalancers",
      help: "Live load balancers of the cloud.",
      samples: count(live.balancers.length),
    },
  ];
}

function typeName(id: string): string {
  return volumeTypes.find((t) => t.id === id)?.name ?? id;
}

/** `GET /metrics`: the inventory at the virtual clock, clamped to the month's end. */
export function inventoryRoute(view: PlatformView, now: () => number) {
  return new Elysia({ name: "svc-simulator-inventory" }).get(
    "/metrics",
    () =>
      new Response(inventoryExposition(view, view.clamp(now())), {
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      }),
  );
}
