import { Elysia } from "elysia";
import type { LoadBalancerMembers } from "./load-balancer-members.ts";
import { checkToken, isoPlain, nextLink, paginate } from "./openstack-http.ts";
import type { LiveResource, PlatformView } from "./platform-view.ts";

function loadBalancerDocument(live: LiveResource, members: LoadBalancerMembers, at: number) {
  const { resource, truth } = live;
  const a = resource.attributes;
  const added = members.of(resource.resource_id, at);
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
    flavor_id: typeof truth.size.flavor === "string" ? truth.size.flavor : null,
    availability_zone: null,
    vip_address: String(a.vip_address),
    vip_port_id: String(a.vip_port_id),
    vip_subnet_id: String(a.vip_subnet_id),
    vip_network_id: null,
    vip_qos_policy_id: null,
    // The month gives load balancers no listeners or pools (decision 236); a test may add some.
    listeners: added?.listeners ?? [],
    pools: added?.pools ?? [],
    tags: [],
    created_at: isoPlain(live.created.at),
    updated_at: isoPlain(Math.max(live.updatedAt, added?.at ?? 0)),
  };
}

/** The listeners or pools of the load balancers live at `at`, as octavia lists them, in id order. */
function memberDocuments(
  view: PlatformView,
  members: LoadBalancerMembers,
  at: number,
  kind: "listeners" | "pools",
) {
  return view.live("loadbalancer", at).flatMap((live) =>
    (members.of(live.resource.resource_id, at)?.[kind] ?? []).map(({ id }, i) => ({
      id,
      name: `${String(live.resource.attributes.name)}-${kind === "listeners" ? "listener" : "pool"}-${i}`,
      project_id: live.truth.project_id,
      loadbalancers: [{ id: live.resource.resource_id }],
      protocol: "HTTP",
      ...(kind === "listeners" ? { protocol_port: 80 + i } : { lb_algorithm: "ROUND_ROBIN" }),
      provisioning_status: "ACTIVE",
      operating_status: "ONLINE",
      admin_state_up: true,
    })),
  );
}

/**
 * octavia at the virtual clock: the version list, `lbaas/loadbalancers` (each with its `listeners`
 * and `pools` id lists), and the `lbaas/listeners` and `lbaas/pools` listings: empty for the month's
 * own load balancers (decision 236), showing what `members` added.
 */
export function loadBalancerRoutes(deps: {
  view: PlatformView;
  token: string;
  now: () => number;
  members: LoadBalancerMembers;
}) {
  const { view, token, members } = deps;
  const memberListing = (request: Request, kind: "listeners" | "pools") => {
    const refused = checkToken(request, token);
    if (refused !== null) return refused;
    const items = memberDocuments(view, members, view.clamp(deps.now()), kind);
    const page = paginate(items, new URL(request.url).searchParams, { default: 1000, max: 1000 });
    if (page instanceof Response) return page;
    const links = page.next === null ? [] : [{ rel: "next", href: nextLink(request, page.next) }];
    return { [kind]: page.items, [`${kind}_links`]: links };
  };
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
      const items = view.live("loadbalancer", at).map((live) => loadBalancerDocument(live, members, at));
      const query = new URL(request.url).searchParams;
      const page = paginate(items, query, { default: 1000, max: 1000 });
      if (page instanceof Response) return page;
      const body: Record<string, unknown> = { loadbalancers: page.items };
      body.loadbalancers_links =
        page.next === null ? [] : [{ rel: "next", href: nextLink(request, page.next) }];
      return body;
    })
    .get("/load-balancer/v2.0/lbaas/listeners", ({ request }) => memberListing(request, "listeners"))
    .get("/load-balancer/v2.0/lbaas/pools", ({ request }) => memberListing(request, "pools"));
}
