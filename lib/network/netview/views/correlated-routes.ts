/** `/api/v1/correlated/...`: the correlated views (correlated.ts) at both browse prefixes. */
import { Elysia } from "elysia";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "../browse-context.ts";
import { chassisInventory, type InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { listOf, responses } from "../openapi-shapes.ts";
import { checkTable } from "../table-json.ts";
import {
  chassisDetailView,
  chassisSummary,
  type Inventory,
  portBindingDetail,
  routerDetail,
  routerPortDetail,
  routerSummary,
  switchDetail,
  switchPortDetail,
  switchSummary,
} from "./correlated.ts";
import { type NetworkIndex, networkIndex } from "./network-index.ts";
import { byName } from "./row-values.ts";
import {
  chassisDetailSchema,
  chassisSummarySchema,
  portBindingDetailSchema,
  routerDetailSchema,
  routerPortDetailSchema,
  routerSummarySchema,
  switchDetailSchema,
  switchPortDetailSchema,
  switchSummarySchema,
} from "./view-shapes.ts";

export interface ViewContext {
  ix: NetworkIndex;
  inventory: Inventory;
  cluster: Cluster;
}

/** The index and inventory of a synced cluster (503 before the first sync, as the table routes). */
export function viewContext(cluster: Cluster, clock: InventoryClock): ViewContext {
  checkTable(cluster.nb.cache, "northbound", "Logical_Switch");
  checkTable(cluster.sb.cache, "southbound", "Port_Binding");
  const inventory = new Map(chassisInventory(cluster.sb.cache, clock).map((e) => [e.name, e]));
  return { ix: networkIndex(cluster.nb.cache, cluster.sb.cache), inventory, cluster };
}

type JsonSchema = Record<string, unknown>;

/** One view route: its path (below the browse prefix), what the document says, and its answer. */
export interface ViewRoute {
  path: string;
  summary: string;
  schema: JsonSchema;
  answer: (view: ViewContext, uuid: string) => unknown;
}

const one = (rows: Map<string, Row>, uuid: string) => {
  const row = rows.get(uuid);
  if (row === undefined) throw new NotFoundError("not found");
  return row;
};

const views: ViewRoute[] = [
  {
    path: "logical-switches",
    summary: "Logical switches with datapath, port, ACL, load balancer and router counts",
    schema: listOf(switchSummarySchema),
    answer: ({ ix }) => [...ix.ls.values()].map((ls) => switchSummary(ix, ls)).sort(byName),
  },
  {
    path: "logical-switches/:uuid",
    summary:
      "One logical switch with its ports and their bindings and chassis, ACLs, port groups, load balancers, routers",
    schema: switchDetailSchema,
    answer: ({ ix, inventory }, uuid) => switchDetail(ix, inventory, one(ix.ls, uuid)),
  },
  {
    path: "logical-switch-ports/:uuid",
    summary:
      "One logical switch port with its switch, binding, chassis, port groups, ACLs, router peer, DHCP, MAC bindings and FDB",
    schema: switchPortDetailSchema,
    answer: ({ ix, inventory }, uuid) => switchPortDetail(ix, inventory, one(ix.lsp, uuid)),
  },
  {
    path: "logical-routers",
    summary: "Logical routers with datapath, port, NAT, route, policy and load balancer counts",
    schema: listOf(routerSummarySchema),
    answer: ({ ix }) => [...ix.lr.values()].map((lr) => routerSummary(ix, lr)).sort(byName),
  },
  {
    path: "logical-routers/:uuid",
    summary:
      "One logical router with its ports (peer switches, gateway chassis, active chassis), NAT, static routes, policies, load balancers",
    schema: routerDetailSchema,
    answer: ({ ix, inventory }, uuid) => routerDetail(ix, inventory, one(ix.lr, uuid)),
  },
  {
    path: "logical-router-ports/:uuid",
    summary:
      "One logical router port with its router, peer switch, gateway chassis by priority and the active one, binding, MAC bindings, NAT",
    schema: routerPortDetailSchema,
    answer: ({ ix, inventory }, uuid) => routerPortDetail(ix, inventory, one(ix.lrp, uuid)),
  },
  {
    path: "port-bindings/:uuid",
    summary:
      "One port binding with its datapath and NB owner, NB port, chassis (alive, tunnel IPs), MAC bindings and FDB entries",
    schema: portBindingDetailSchema,
    answer: ({ ix, inventory }, uuid) => portBindingDetail(ix, inventory, one(ix.pb, uuid)),
  },
  {
    path: "chassis",
    summary: "Chassis with liveness, encaps and bound port count",
    schema: listOf(chassisSummarySchema),
    answer: ({ ix, inventory }) =>
      [...ix.chassis.values()].map((ch) => chassisSummary(ix, inventory, ch)).sort(byName),
  },
  {
    path: "chassis/:uuid",
    summary:
      "One chassis (by SB uuid) with its bound ports and gateway duties (router ports, priority, active)",
    schema: chassisDetailSchema,
    answer: ({ ix, inventory }, uuid) => chassisDetailView(ix, inventory, one(ix.chassis, uuid)),
  },
];

export function correlatedRoutes(clusters: ClusterSet, clockOf: (cluster: Cluster) => InventoryClock) {
  const app = new Elysia({ name: "netview-correlated" });
  const errors = { 404: "not found (or unknown cluster)", 503: "the databases have not been synced yet" };
  for (const prefix of browsePrefixes) {
    const tags = ["correlated", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    for (const view of views) {
      const detail = view.path.endsWith("/:uuid");
      app.get(
        `${prefix}/correlated/${view.path}`,
        (c: BrowseContext) => {
          const cluster = clusterOf(clusters, c);
          return view.answer(viewContext(cluster, clockOf(cluster)), detail ? paramOf(c, "uuid") : "");
        },
        { detail: { tags, summary: view.summary, responses: responses(view.schema, errors) } },
      );
    }
  }
  return app;
}
