/**
 * One OVN deployment the server inspects: its NB and SB clients (each with its cache) and, when
 * configured, the fleet of chassis switches. Routes reach a cluster through a ClusterSet, by name or
 * as the default.
 */
import { NotFoundError } from "../../foundation/errors/svc-error.ts";
import type { OvsdbClient } from "../ovsdb/ovsdb-client.ts";
import type { OvsFleet } from "./ovs-fleet.ts";

export interface Cluster {
  name: string;
  nb: OvsdbClient;
  sb: OvsdbClient;
  fleet: OvsFleet | undefined;
  /** Set by a snapshot session (a later issue) that suspends the live monitors. */
  suspended: boolean;
  /** True once NB and SB have both completed an initial sync. */
  everSynced: boolean;
}

/** Responses from such a cluster carry `X-Netview-Stale: true`. */
export function isStale(cluster: Cluster): boolean {
  return cluster.suspended || !cluster.nb.cache.authoritative || !cluster.sb.cache.authoritative;
}

export class ClusterSet {
  readonly byName: ReadonlyMap<string, Cluster>;

  constructor(
    clusters: Cluster[],
    readonly defaultCluster: Cluster,
  ) {
    this.byName = new Map(clusters.map((c) => [c.name, c]));
  }

  get all(): Cluster[] {
    return [...this.byName.values()];
  }

  resolve(name: string | undefined): Cluster {
    if (name === undefined) return this.defaultCluster;
    const cluster = this.byName.get(name);
    if (cluster === undefined) throw new NotFoundError(`unknown cluster ${JSON.stringify(name)}`);
    return cluster;
  }

  start(): void {
    for (const cluster of this.all) {
      cluster.nb.start();
      cluster.sb.start();
      cluster.fleet?.start();
      void Promise.all([cluster.nb.ready(), cluster.sb.ready()]).then(() => {
        cluster.everSynced = true;
      });
    }
  }

  /** Once every cluster's NB and SB client has asked for its rows or failed its first attempt. */
  async dialled(): Promise<void> {
    await Promise.all(this.all.flatMap((c) => [c.nb.dialled(), c.sb.dialled()]));
  }

  stop(): void {
    for (const cluster of this.all) {
      cluster.nb.stop();
      cluster.sb.stop();
      cluster.fleet?.stop();
    }
  }
}
