/** Builds the clients of every configured cluster from the parsed options (nothing is dialled yet). */
import type { BackoffPolicy } from "../../foundation/async/backoff.ts";
import type { OvsdbLogger } from "../ovsdb/ovsdb-client.ts";
import { OvsdbClient } from "../ovsdb/ovsdb-client.ts";
import type { TlsMaterial } from "../ovsdb/rpc-connection.ts";
import { type Cluster, ClusterSet } from "./cluster.ts";
import type { NetviewOptions } from "./netview-options.ts";
import { OvsFleet } from "./ovs-fleet.ts";

/** The TLS files of the options as the OVSDB sessions take them. */
export function tlsMaterialOf(options: Pick<NetviewOptions, "tls">): TlsMaterial | undefined {
  return options.tls === undefined
    ? undefined
    : { key: options.tls.privateKey, cert: options.tls.certificate, ca: options.tls.caCert };
}

export function buildClusters(
  options: NetviewOptions,
  log?: OvsdbLogger,
  backoff?: BackoffPolicy,
): ClusterSet {
  const tls = tlsMaterialOf(options);
  const common = {
    probeIntervalMs: options.probeIntervalMs,
    ...(backoff === undefined ? {} : { backoff }),
    ...(tls === undefined ? {} : { tls }),
    ...(log === undefined ? {} : { log }),
  };
  const clusters: Cluster[] = options.clusters.map((c) => ({
    name: c.name,
    nb: new OvsdbClient({ remotes: c.nb, database: "OVN_Northbound", ...common }),
    sb: new OvsdbClient({ remotes: c.sb, database: "OVN_Southbound", ...common }),
    fleet: c.ovsMgmt === undefined ? undefined : new OvsFleet(c.ovsMgmt, common),
    suspended: false,
    everSynced: false,
  }));
  const fallback = clusters[0];
  if (fallback === undefined) throw new Error("no cluster configured");
  return new ClusterSet(clusters, clusters.find((c) => c.name === options.defaultCluster) ?? fallback);
}
