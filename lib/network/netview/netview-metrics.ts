/**
 * Netview's own instruments on the program's registry, read at scrape time from the clusters, so
 * nothing has to remember to update them.
 */
import type { Registry } from "prom-client";
import type { ClusterSet } from "./cluster.ts";
import { scrapeGauge } from "./scrape-gauge.ts";

export function registerNetviewMetrics(registry: Registry, clusters: ClusterSet): void {
  const registers = [registry];
  scrapeGauge(registers, {
    name: "netview_ovsdb_authoritative",
    help: "1 when the cache of a database is authoritative (synced and connected), else 0",
    labelNames: ["cluster", "database"],
    *samples() {
      for (const c of clusters.all) {
        yield [{ cluster: c.name, database: "nb" }, c.nb.cache.authoritative ? 1 : 0];
        yield [{ cluster: c.name, database: "sb" }, c.sb.cache.authoritative ? 1 : 0];
      }
    },
  });
  scrapeGauge(registers, {
    name: "netview_ovsdb_syncs",
    help: "Completed (re)syncs of a database since start",
    labelNames: ["cluster", "database"],
    *samples() {
      for (const c of clusters.all) {
        yield [{ cluster: c.name, database: "nb" }, c.nb.syncs];
        yield [{ cluster: c.name, database: "sb" }, c.sb.syncs];
      }
    },
  });
  scrapeGauge(registers, {
    name: "netview_chassis_switch_connected",
    help: "1 when netview holds a synced session to the chassis's switch database",
    labelNames: ["cluster", "system_id"],
    *samples() {
      for (const c of clusters.all)
        for (const s of c.fleet?.status() ?? [])
          yield [{ cluster: c.name, system_id: s.system_id }, s.connected ? 1 : 0];
    },
  });
}
