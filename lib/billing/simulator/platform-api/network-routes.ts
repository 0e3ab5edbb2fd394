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

/**
 * neutron at the virtual clock: the version document and `v2.0/floatingips`, which pages only when the
 * client asks with `limit`, as neutron does.
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
    });
}
