/**
 * Netview's own instruments on the program's registry, read at scrape time from the clusters, so
 * nothing has to remember to update them.
 */
import { Gauge, type Registry } from "prom-client";
import type { ClusterSet } from "./cluster.ts";

export function registerNetviewMetrics(registry: Registry, clusters: ClusterSet): void {
  new Gauge({
    name: "netview_ovsdb_authoritative",
    help: "1 when the cache of a database is authoritative (synced and connected), else 0",
    labelNames: ["cluster", "database"],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of clusters.all) {
        this.set({ cluster: c.name, database: "nb" }, c.nb.cache.authoritative ? 1 : 0);
        this.set({ cluster: c.name, database: "sb" }, c.sb.cache.authoritative ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: "netview_ovsdb_syncs",
    help: "Completed (re)syncs of a database since start",
    labelNames: ["cluster", "database"],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of clusters.all) {
        this.set({ cluster: c.name, database: "nb" }, c.nb.syncs);
        this.set({ cluster: c.name, database: "sb" }, c.sb.syncs);
      }
    },
  });
  new Gauge({
    name: "netview_chassis_switch_connected",
    help: "1 when netview holds a synced session to the chassis's switch database",
    labelNames: ["cluster", "system_id"],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of clusters.all) {
        for (const s of c.fleet?.status() ?? []) {
          this.set({ cluster: c.name, system_id: s.system_id }, s.connected ? 1 : 0);
        }
      }
    },
  });
}
