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

// size: split pending (issue 27, helper input-netview)
export function correlatedRoutes(clusters: ClusterSet, clockOf: (cluster: Cluster) => InventoryClock) {
  const app = new Elysia({ name: "netview-correlated" });
  const ctx = (context: BrowseContext) => {
    const cluster = clusterOf(clusters, context);
    return viewContext(cluster, clockOf(cluster));
  };
  const one = (rows: Map<string, Row>, uuid: string) => {
    const row = rows.get(uuid);
    if (row === undefined) throw new NotFoundError("not found");
    return row;
  };
  for (const prefix of browsePrefixes) {
    const tags = ["correlated", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    const base = `${prefix}/correlated`;
    const errors = { 404: "not found (or unknown cluster)", 503: "the databases have not been synced yet" };
    app
      .get(
        `${base}/logical-switches`,
        (c: BrowseContext) => {
          const { ix } = ctx(c);
          return [...ix.ls.values()].map((ls) => switchSummary(ix, ls)).sort(byName);
        },
        {
          detail: {
            tags,
            summary: "Logical switches with datapath, port, ACL, load balancer and router counts",
            responses: responses(listOf(switchSummarySchema), errors),
          },
        },
      )
      .get(
        `${base}/logical-switches/:uuid`,
        (c: BrowseContext) => {
          const { ix, inventory } = ctx(c);
          return switchDetail(ix, inventory, one(ix.ls, paramOf(c, "uuid")));
        },
        {
          detail: {
            tags,
            summary:
              "One logical switch with its ports and their bindings and chassis, ACLs, port groups, load balancers, routers",
            responses: responses(switchDetailSchema, errors),
          },
        },
      )
      .get(
        `${base}/logical-switch-ports/:uuid`,
        (c: BrowseContext) => {
          const { ix, inventory } = ctx(c);
          return switchPortDetail(ix, inventory, one(ix.lsp, paramOf(c, "uuid")));
        },
        {
          detail: {
            tags,
            summary:
              "One logical switch port with its switch, binding, chassis, port groups, ACLs, router peer, DHCP, MAC bindings and FDB",
            responses: responses(switchPortDetailSchema, errors),
          },
        },
      )
      .get(
        `${base}/logical-routers`,
        (c: BrowseContext) => {
          const { ix } = ctx(c);
          return [...ix.lr.values()].map((lr) => routerSummary(ix, lr)).sort(byName);
        },
        {
          detail: {
            tags,
            summary: "Logical routers with datapath, port, NAT, route, policy and load balancer counts",
            responses: responses(listOf(routerSummarySchema), errors),
          },
        },
      )
      .get(
        `${base}/logical-routers/:uuid`,
        (c: BrowseContext) => {
          const { ix, inventory } = ctx(c);
          return routerDetail(ix, inventory, one(ix.lr, paramOf(c, "uuid")));
        },
        {
          detail: {
            tags,
            summary:
              "One logical router with its ports (peer switches, gateway chassis, active chassis), NAT, static routes, policies, load balancers",
            responses: responses(routerDetailSchema, errors),
          },
        },
      )
      .get(
        `${base}/logical-router-ports/:uuid`,
        (c: BrowseContext) => {
          const { ix, inventory } = ctx(c);
          return routerPortDetail(ix, inventory, one(ix.lrp, paramOf(c, "uuid")));
        },
        {
          detail: {
            tags,
            summary:
              "One logical router port with its router, peer switch, gateway chassis by priority and the active one, binding, MAC bindings, NAT",
            responses: responses(routerPortDetailSchema, errors),
          },
        },
      )
      .get(
        `${base}/port-bindings/:uuid`,
        (c: BrowseContext) => {
          const { ix, inventory } = ctx(c);
          return portBindingDetail(ix, inventory, one(ix.pb, paramOf(c, "uuid")));
        },
        {
          detail: {
            tags,
            summary:
              "One port binding with its datapath and NB owner, NB port, chassis (alive, tunnel IPs), MAC bindings and FDB entries",
            responses: responses(portBindingDetailSchema, errors),
          },
        },
      )
      .get(
        `${base}/chassis`,
        (c: BrowseContext) => {
          const { ix, inventory } = ctx(c);
          return [...ix.chassis.values()].map((ch) => chassisSummary(ix, inventory, ch)).sort(byName);
        },
        {
          detail: {
            tags,
            summary: "Chassis with liveness, encaps and bound port count",
            responses: responses(listOf(chassisSummarySchema), errors),
          },
        },
      )
      .get(
        `${base}/chassis/:uuid`,
        (c: BrowseContext) => {
          const { ix, inventory } = ctx(c);
          return chassisDetailView(ix, inventory, one(ix.chassis, paramOf(c, "uuid")));
        },
        {
          detail: {
            tags,
            summary:
              "One chassis (by SB uuid) with its bound ports and gateway duties (router ports, priority, active)",
            responses: responses(chassisDetailSchema, errors),
          },
        },
      );
  }
  return app;
}
