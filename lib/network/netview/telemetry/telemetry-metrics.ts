/**
 * The telemetry as Prometheus series on `/metrics` (docs/netview.md "Metrics"), read at scrape time
 * from the same sources as the routes, so the two never disagree.
 */
import { Counter, Gauge, type Registry } from "prom-client";
import type { History } from "../history/history.ts";
import { scrapeGauge } from "../scrape-gauge.ts";
import type { ClusterTelemetry } from "./cluster-telemetry.ts";
import { raftHealth } from "./raft-probe.ts";
import { flowCounts, summary } from "./telemetry.ts";

export function registerTelemetryMetrics(
  registry: Registry,
  telemetry: ClusterTelemetry,
  history: History,
): void {
  registerCacheMetrics([registry], telemetry);
  registerPropagationMetrics([registry], telemetry);
  registerRaftMetrics([registry], telemetry);
  registerHistoryMetrics([registry], history);
}

/** What the caches hold: rows, logical flows, chassis by sync status. */
function registerCacheMetrics(registers: Registry[], telemetry: ClusterTelemetry): void {
  const clusters = () => telemetry.clusters.all;
  scrapeGauge(registers, {
    name: "netview_rows",
    help: "Rows of the main NB and SB tables in the cache",
    labelNames: ["cluster", "database", "table"],
    *samples() {
      for (const c of clusters()) {
        const s = summary(c, [], []);
        for (const [table, n] of Object.entries(s.nb.rows))
          yield [{ cluster: c.name, database: "nb", table }, n];
        for (const [table, n] of Object.entries(s.sb.rows))
          yield [{ cluster: c.name, database: "sb", table }, n];
      }
    },
  });
  scrapeGauge(registers, {
    name: "netview_logical_flows",
    help: "Logical flows by pipeline",
    labelNames: ["cluster", "pipeline"],
    *samples() {
      for (const c of clusters())
        for (const [pipeline, n] of Object.entries(flowCounts(c.sb.cache).by_pipeline))
          yield [{ cluster: c.name, pipeline }, n];
    },
  });
  scrapeGauge(registers, {
    name: "netview_chassis",
    help: "Chassis by sync status (in_sync, lagging, stale, no_private_row, reports_disabled)",
    labelNames: ["cluster", "sync_status"],
    *samples() {
      for (const c of clusters()) {
        const counts: Record<string, number> = {
          in_sync: 0,
          lagging: 0,
          stale: 0,
          no_private_row: 0,
          reports_disabled: 0,
        };
        for (const e of telemetry.inventory(c)) counts[e.sync_status] = (counts[e.sync_status] ?? 0) + 1;
        for (const [status, n] of Object.entries(counts)) yield [{ cluster: c.name, sync_status: status }, n];
      }
    },
  });
}

/** nb_cfg where it is: the counters, each chassis's lag, the last generation's travel. */
function registerPropagationMetrics(registers: Registry[], telemetry: ClusterTelemetry): void {
  const clusters = () => telemetry.clusters.all;
  scrapeGauge(registers, {
    name: "netview_nb_cfg",
    help: "NB_Global configuration counters: nb_cfg (requested), sb_cfg (SB reached), hv_cfg (every chassis reached)",
    labelNames: ["cluster", "counter"],
    *samples() {
      for (const c of clusters()) {
        const p = summary(c, [], []).propagation;
        yield [{ cluster: c.name, counter: "nb_cfg" }, p.nb_cfg];
        yield [{ cluster: c.name, counter: "sb_cfg" }, p.sb_cfg];
        yield [{ cluster: c.name, counter: "hv_cfg" }, p.hv_cfg];
      }
    },
  });
  scrapeGauge(registers, {
    name: "netview_chassis_lag_seconds",
    help: "How long a chassis has been behind the current nb_cfg generation (0 in sync)",
    labelNames: ["cluster", "chassis"],
    *samples() {
      for (const c of clusters())
        for (const e of telemetry.inventory(c))
          if (e.lag_ms !== null) yield [{ cluster: c.name, chassis: e.name }, e.lag_ms / 1000];
    },
  });
  scrapeGauge(registers, {
    name: "netview_propagation_seconds",
    help: "Time the last completed generation took to reach the SB (stage=sb) and every chassis (stage=hv)",
    labelNames: ["cluster", "stage"],
    *samples() {
      for (const c of clusters()) {
        const done = [...telemetry.generations(c)].reverse().find((g) => g.hv_at !== null);
        if (done === undefined) continue;
        if (done.sb_at !== null)
          yield [{ cluster: c.name, stage: "sb" }, Math.max(0, done.sb_at - done.started_at) / 1000];
        yield [
          { cluster: c.name, stage: "hv" },
          Math.max(0, (done.hv_at as number) - done.started_at) / 1000,
        ];
      }
    },
  });
}

/** What each raft member says of itself, and whether each database is led. */
function registerRaftMetrics(registers: Registry[], telemetry: ClusterTelemetry): void {
  const clusters = () => telemetry.clusters.all;
  const member = (
    name: string,
    help: string,
    value: (m: {
      reachable: boolean;
      connected: boolean | null;
      leader: boolean | null;
      index: number | null;
    }) => number | null,
  ) =>
    scrapeGauge(registers, {
      name,
      help,
      labelNames: ["cluster", "database", "member"],
      *samples() {
        for (const c of clusters()) {
          for (const status of telemetry.raftStatus(c)) {
            for (const m of status.members) {
              const v = value(m);
              if (v !== null) yield [{ cluster: c.name, database: status.database, member: m.remote }, v];
            }
          }
        }
      },
    });
  member("netview_raft_member_up", "1 when the member answered the last probe", (m) => (m.reachable ? 1 : 0));
  member("netview_raft_member_connected", "1 when the member is connected to its cluster", (m) =>
    m.connected === null ? null : m.connected ? 1 : 0,
  );
  member("netview_raft_member_leader", "1 for the member that leads", (m) =>
    m.leader === null ? null : m.leader ? 1 : 0,
  );
  member("netview_raft_member_index", "The member's raft log index", (m) => m.index);
  scrapeGauge(registers, {
    name: "netview_raft_has_leader",
    help: "1 when a connected member of the database leads (standalone databases count as led)",
    labelNames: ["cluster", "database"],
    *samples() {
      for (const c of clusters()) {
        for (const status of telemetry.raftStatus(c)) {
          const h = raftHealth(status);
          if (h.state !== "unknown")
            yield [
              { cluster: c.name, database: status.database },
              h.state === "no_leader" || h.state === "unreachable" ? 0 : 1,
            ];
        }
      }
    },
  });
}

/** The change history: events recorded and kept, the stream's clients and its cuts. */
function registerHistoryMetrics(registers: Registry[], history: History): void {
  new Gauge({
    name: "netview_events_latest_seq",
    help: "Seq of the last recorded database change",
    registers,
    collect() {
      this.set(history.store.last().seq);
    },
  });
  new Gauge({
    name: "netview_events_retained",
    help: "Recorded database changes currently kept",
    registers,
    collect() {
      this.set(history.store.bounds().count);
    },
  });
  new Gauge({
    name: "netview_ws_clients",
    help: "Clients of the change stream",
    registers,
    collect() {
      this.set(history.hub.stats().clients);
    },
  });
  new Counter({
    name: "netview_events_coalesced_total",
    help: "Change events marked coalesced: ovsdb-server may have merged earlier changes of their row into them",
    registers,
    collect() {
      this.reset();
      this.inc(history.feed.coalescedEvents);
    },
  });
  new Counter({
    name: "netview_ws_slow_closed_total",
    help: "Stream clients closed because they fell too far behind",
    registers,
    collect() {
      this.reset();
      this.inc(history.hub.stats().closedSlow);
    },
  });
}
