import { Elysia } from "elysia";
import { checkToken, isoPlain, nextLink, paginate } from "./openstack-http.ts";
import type { LiveResource, PlatformView } from "./platform-view.ts";

function loadBalancerDocument(live: LiveResource) {
  const { resource, truth } = live;
  const a = resource.attributes;
  return {
    id: resource.resource_id,
    name: String(a.name),
    description: "",
    project_id: truth.project_id,
    tenant_id: truth.project_id,
    provisioning_status: truth.state.toUpperCase(),
    operating_status: "ONLINE",
    admin_state_up: true,
    provider: "amphora",
    flavor_id: null,
    availability_zone: null,
    vip_address: String(a.vip_address),
    vip_port_id: String(a.vip_port_id),
    vip_subnet_id: String(a.vip_subnet_id),
    vip_network_id: null,
    vip_qos_policy_id: null,
    // The simulated load balancers carry no listeners or pools (decision 236).
    listeners: [],
    pools: [],
    tags: [],
    created_at: isoPlain(live.created.at),
    updated_at: isoPlain(live.updatedAt),
  };
}

/**
 * octavia at the virtual clock: the version list, `lbaas/loadbalancers` (each with its `listeners`
 * and `pools` id lists), and the `lbaas/listeners` and `lbaas/pools` listings, empty (decision 236).
 */
export function loadBalancerRoutes(deps: { view: PlatformView; token: string; now: () => number }) {
  const { view, token } = deps;
  return new Elysia({ name: "svc-simulator-load-balancer" })
    .get("/load-balancer", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const host = request.headers.get("host") ?? new URL(request.url).host;
      return {
        versions: [
          {
            id: "v2.0",
            status: "SUPPORTED",
            updated: "2016-12-11T00:00:00Z",
            links: [{ rel: "self", href: `http://${host}/load-balancer/v2.0` }],
          },
          {
            id: "v2.27",
            status: "CURRENT",
            updated: "2023-05-05T00:00:00Z",
            links: [{ rel: "self", href: `http://${host}/load-balancer/v2` }],
          },
        ],
      };
    })
    .get("/load-balancer/v2.0/lbaas/loadbalancers", ({ request }) => {
      const refused = checkToken(request, token);
      if (refused !== null) return refused;
      const at = view.clamp(deps.now());
      const items = view.live("loadbalancer", at).map(loadBalancerDocument);
      const query = new URL(request.url).searchParams;
      const page = paginate(items, query, { default: 1000, max: 1000 });
      if (page instanceof Response) return page;
      const body: Record<string, unknown> = { loadbalancers: page.items };
      body.loadbalancers_links =
        page.next === null ? [] : [{ rel: "next", href: nextLink(request, page.next) }];
      return body;
    })
    .get("/load-balancer/v2.0/lbaas/listeners", ({ request }) => {
      return checkToken(request, token) ?? { listeners: [], listeners_links: [] };
    })
    .get("/load-balancer/v2.0/lbaas/pools", ({ request }) => {
      return checkToken(request, token) ?? { pools: [], pools_links: [] };
    });
}
