import { Elysia } from "elysia";
import { publicNetworkId } from "../catalog.ts";
import { checkToken, isoZ, nextLink, paginate } from "./openstack-http.ts";
import type { LiveResource, PlatformView } from "./platform-view.ts";

function floatingIpDocument(live: LiveResource) {
  const { resource, truth } = live;
  const a = resource.attributes;
  return {
    id: resource.resource_id,
    tenant_id: truth.project_id,
    project_id: truth.project_id,
    floating_ip_address: String(a.address),
    floating_network_id: publicNetworkId,
    router_id: String(a.router_id),
    port_id: String(a.port_id),
    fixed_ip_address: String(a.fixed_ip_address),
    status: truth.state.toUpperCase(),
    description: "",
    dns_domain: "",
    dns_name: "",
    port_details: null,
    qos_policy_id: null,
    tags: [],
    created_at: isoZ(live.created.at),
    updated_at: isoZ(live.updatedAt),
    revision_number: 2,
  };
}

/** The admin project that owns the external network, as it owns every shared resource of a cloud. */
const adminProjectId = "5c3f0e7a9b1d4e2f8a6c0b9d7e5f3a1c";

/**
 * The one network of the simulated cloud a tenant's resources name: the external network every
 * floating address comes from (decision 289). Tenant networks are not part of the month.
 */
function publicNetwork(periodFrom: number) {
  return {
    id: publicNetworkId,
    name: "public",
    tenant_id: adminProjectId,
    project_id: adminProjectId,
    admin_state_up: true,
    status: "ACTIVE",
    shared: false,
    "router:external": true,
    is_default: true,
    subnets: ["4d6f8a0c-2e4a-4c6e-8a0c-2e4a6c8e0a2c"],
    availability_zone_hints: [],
    availability_zones: ["nova"],
    ipv4_address_scope: null,
    ipv6_address_scope: null,
    mtu: 1500,
    port_security_enabled: true,
    "provider:network_type": "flat",
    "provider:physical_network": "public",
    "provider:segmentation_id": null,
    description: "",
    dns_domain: "",
    qos_policy_id: null,
    tags: [],
    created_at: isoZ(periodFrom - 90 * 86_400_000),
    updated_at: isoZ(periodFrom - 90 * 86_400_000),
    revision_number: 1,
  };
}

/**
 * neutron at the virtual clock: the version document, `v2.0/floatingips`, which pages only when the
 * client asks with `limit`, as neutron does, and `v2.0/networks`.
 */
export function networkRoutes(deps: { view: PlatformView; token: string; now: () => number }) {
  const { view, token } = deps;
  return new Elysia({ name: "svc-simulator-network" })
    .get("/network", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const host = request.headers.get("host") ?? new URL(request.url).host;
      return {
        versions: [
          { id: "v2.0", status: "CURRENT", links: [{ rel: "self", href: `http://${host}/network/v2.0/` }] },
        ],
      };
    })
    .get("/network/v2.0/floatingips", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const at = view.clamp(deps.now());
      const items = view.live("floating_ip", at).map(floatingIpDocument);
      const query = new URL(request.url).searchParams;
      const unbounded = Number.MAX_SAFE_INTEGER;
      const page = paginate(items, query, { default: unbounded, max: unbounded });
      if (page instanceof Response) return page;
      const body: Record<string, unknown> = { floatingips: page.items };
      if (page.next !== null) body.floatingips_links = [{ rel: "next", href: nextLink(request, page.next) }];
      return body;
    })
    .get("/network/v2.0/networks", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const query = new URL(request.url).searchParams;
      const network = publicNetwork(view.periodFrom);
      // neutron filters by any attribute given as a query parameter: the client asks for external ones.
      const external = query.get("router:external");
      const shown = external === null || external.toLowerCase() === "true" ? [network] : [];
      return { networks: shown };
    });
}
