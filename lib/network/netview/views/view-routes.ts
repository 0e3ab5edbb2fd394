/**
 * The views of issue 16 beside the correlated ones: `/api/v1/search`, `/topology`,
 * `/topology/gateway`, `/topology/nat`, `/topology/load-balancers` and `/flows`, at both prefixes.
 */
import { Elysia } from "elysia";
import { type BrowseContext, browsePrefixes, clusterOf } from "../browse-context.ts";
import type { InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { arr, flowFieldProps, n, obj, s } from "../debug/debug-shapes.ts";
import { responses } from "../openapi-shapes.ts";
import { int, openapiParameters, type ParamSpec, readQuery, str } from "../query-params.ts";
import { checkTable } from "../table-json.ts";
import { correlatedRoutes, type ViewRoute, viewContext } from "./correlated-routes.ts";
import { flowPage } from "./flows.ts";
import { search } from "./search.ts";
import { gatewayTopology, loadBalancerTopology, natTopology, topology } from "./topology.ts";
import {
  gatewayTopologySchema,
  loadBalancerTopologySchema,
  natTopologySchema,
  topologySchema,
} from "./view-shapes.ts";

const searchParams: ParamSpec[] = [
  {
    name: "q",
    type: "string",
    required: true,
    description:
      "A name, a UUID (full or 4+ hex prefix), a MAC, an IP address or CIDR, or an external id value",
  },
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: 500,
    default: 50,
    description: "Most hits returned (best first)",
  },
];

const flowParams: ParamSpec[] = [
  { name: "datapath", type: "string", description: "Datapath name, NB or SB UUID, or UUID prefix" },
  { name: "pipeline", type: "string", enum: ["ingress", "egress"], description: "Pipeline" },
  { name: "table", type: "integer", minimum: 0, maximum: 255, description: "Table id" },
  { name: "stage", type: "string", description: "Stage name (external_ids:stage-name), e.g. ls_in_acl" },
  { name: "priority", type: "integer", minimum: 0, maximum: 65535, description: "Priority" },
  { name: "match", type: "string", description: "Text the match contains (case-insensitive)" },
  { name: "actions", type: "string", description: "Text the actions contain (case-insensitive)" },
  { name: "limit", type: "integer", minimum: 1, maximum: 1000, default: 100, description: "Page size" },
  {
    name: "offset",
    type: "integer",
    minimum: 0,
    maximum: 10_000_000,
    default: 0,
    description: "Flows to skip",
  },
];

const hitSchema = obj({
  kind: s("string"),
  database: { enum: ["nb", "sb"] },
  table: s("string"),
  uuid: s("string"),
  name: n("string"),
  field: s("string", "the column (or column:key) that matched"),
  value: s("string"),
  score: s(
    "integer",
    "100 exact uuid, 90 exact name, 85 exact address, 80 exact value, 70 uuid prefix, 55-60 CIDR overlap, 30-60 prefix and substring",
  ),
  href: s("string"),
});

const flowSchema = obj({
  uuid: s("string"),
  datapaths: arr(obj({ uuid: s("string"), name: n("string"), tunnel_key: s("integer") })),
  ...flowFieldProps,
  source: n("string"),
  stage_hint: n("string"),
});

const errors = {
  400: "invalid parameters",
  404: "unknown cluster",
  503: "the databases have not been synced yet",
};

const topologyViews: ViewRoute[] = [
  {
    path: "topology",
    summary:
      "Switches, routers, ports, links (switch-router, router-router, switch-physical network) and chassis with the ports they host",
    schema: topologySchema,
    answer: ({ ix, inventory }) => topology(ix, inventory),
  },
  {
    path: "topology/gateway",
    summary:
      "Distributed gateway ports with their chassis by priority and the active one, gateway routers, HA chassis groups",
    schema: gatewayTopologySchema,
    answer: ({ ix, inventory }) => gatewayTopology(ix, inventory),
  },
  {
    path: "topology/nat",
    summary: "NAT rules of every router with their gateway port and the chassis that performs them",
    schema: natTopologySchema,
    answer: ({ ix }) => natTopology(ix),
  },
  {
    path: "topology/load-balancers",
    summary: "Load balancers: VIPs, backends with health-check status, the switches and routers using them",
    schema: loadBalancerTopologySchema,
    answer: ({ ix }) => loadBalancerTopology(ix),
  },
];

function searchAnswer(cluster: Cluster, url: string) {
  const query = readQuery(url, searchParams);
  checkTable(cluster.nb.cache, "northbound", "Logical_Switch");
  checkTable(cluster.sb.cache, "southbound", "Port_Binding");
  return search(str(query.q) ?? "", { nb: cluster.nb.cache, sb: cluster.sb.cache }, int(query.limit) ?? 50);
}

const searchDoc = {
  summary:
    "Search NB, SB and their references by name, UUID, MAC, IP (inside CIDRs and address sets) or external id",
  parameters: openapiParameters(searchParams),
  responses: responses(
    obj({
      query: s("string"),
      kind: { enum: ["uuid", "mac", "ip", "cidr", "text"] },
      total: s("integer"),
      truncated: s("boolean"),
      hits: arr(hitSchema),
    }),
    errors,
  ),
};

function flowsAnswer(cluster: Cluster, url: string) {
  const q = readQuery(url, flowParams);
  checkTable(cluster.sb.cache, "southbound", "Logical_Flow");
  const filter = {
    limit: int(q.limit) ?? 100,
    offset: int(q.offset) ?? 0,
    ...(str(q.datapath) === undefined ? {} : { datapath: str(q.datapath) as string }),
    ...(str(q.pipeline) === undefined ? {} : { pipeline: str(q.pipeline) as "ingress" | "egress" }),
    ...(int(q.table) === undefined ? {} : { table: int(q.table) as number }),
    ...(int(q.priority) === undefined ? {} : { priority: int(q.priority) as number }),
    ...(str(q.stage) === undefined ? {} : { stage: str(q.stage) as string }),
    ...(str(q.match) === undefined ? {} : { match: str(q.match) as string }),
    ...(str(q.actions) === undefined ? {} : { actions: str(q.actions) as string }),
  };
  return flowPage(cluster.sb.cache, filter);
}

const flowsDoc = {
  summary:
    "Logical flows filtered by datapath, pipeline, table, stage, priority and match or action text, in table order",
  parameters: openapiParameters(flowParams),
  responses: responses(
    obj({ total: s("integer"), offset: s("integer"), limit: s("integer"), flows: arr(flowSchema) }),
    errors,
  ),
};

export function viewRoutes(clusters: ClusterSet, clockOf: (cluster: Cluster) => InventoryClock) {
  const app = new Elysia({ name: "netview-views" }).use(correlatedRoutes(clusters, clockOf));
  for (const prefix of browsePrefixes) {
    const tags = (t: string) => [t, ...(prefix === "/api/v1" ? [] : ["clusters"])];
    app
      .get(
        `${prefix}/search`,
        (c: BrowseContext & { request: Request }) => searchAnswer(clusterOf(clusters, c), c.request.url),
        { detail: { tags: tags("search"), ...searchDoc } },
      )
      .get(
        `${prefix}/flows`,
        (c: BrowseContext & { request: Request }) => flowsAnswer(clusterOf(clusters, c), c.request.url),
        { detail: { tags: tags("topology"), ...flowsDoc } },
      );
    for (const view of topologyViews) {
      app.get(
        `${prefix}/${view.path}`,
        (c: BrowseContext) => {
          const cluster = clusterOf(clusters, c);
          return view.answer(viewContext(cluster, clockOf(cluster)), "");
        },
        {
          detail: {
            tags: tags("topology"),
            summary: view.summary,
            responses: responses(view.schema, errors),
          },
        },
      );
    }
  }
  return app;
}
