/**
 * `GET /api/v1/export/topology`: a cluster's logical topology as one self-contained document
 * (decisions 361, 363): the four topology views (`/topology`, `/topology/gateway`, `/topology/nat`,
 * `/topology/load-balancers`) built by the same functions, so the file and the routes never
 * disagree, with a format, a version and when and from what it was taken.
 */
import { isStale } from "../cluster.ts";
import type { ViewContext } from "../views/correlated-routes.ts";
import { gatewayTopology, loadBalancerTopology, natTopology, topology } from "../views/topology.ts";

export function topologyExport({ ix, inventory, cluster }: ViewContext, exportedAt: string) {
  return {
    format: "netview-topology",
    version: 1,
    cluster: cluster.name,
    exported_at: exportedAt,
    stale: isStale(cluster),
    ...topology(ix, inventory),
    gateways: gatewayTopology(ix, inventory),
    nat: natTopology(ix),
    load_balancers: loadBalancerTopology(ix),
  };
}
