/**
 * The telemetry views (docs/netview.md "Telemetry"), pure over a cluster's caches, its chassis
 * inventory, its raft answers and its propagation history.
 */
import { compare } from "../../../foundation/collections/compare.ts";
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { InventoryEntry } from "../chassis-inventory.ts";
import { type Cluster, isStale } from "../cluster.ts";
import type { Generation } from "./propagation-tracker.ts";
import { type RaftStatus, raftHealth } from "./raft-probe.ts";

const counted = {
  nb: [
    "Logical_Switch",
    "Logical_Switch_Port",
    "Logical_Router",
    "Logical_Router_Port",
    "ACL",
    "NAT",
    "Load_Balancer",
    "Port_Group",
    "Address_Set",
  ],
  sb: [
    "Chassis",
    "Port_Binding",
    "Datapath_Binding",
    "Logical_Flow",
    "MAC_Binding",
    "FDB",
    "Multicast_Group",
  ],
};

function databaseSummary(cache: DatabaseCache, state: string, tables: readonly string[]) {
  return {
    state,
    authoritative: cache.authoritative,
    schema: cache.schema === undefined ? null : { name: cache.schema.name, version: cache.schema.version },
    rows: Object.fromEntries(tables.map((t) => [t, cache.count(t)])),
  };
}

const str = (v: unknown) => (typeof v === "string" ? v : "");
const num = (v: unknown) => (typeof v === "number" ? v : 0);

export function summary(cluster: Cluster, inventory: readonly InventoryEntry[], raft: readonly RaftStatus[]) {
  const statuses = { in_sync: 0, lagging: 0, stale: 0, no_private_row: 0, reports_disabled: 0 };
  for (const entry of inventory) statuses[entry.sync_status]++;
  const vifs = cluster.nb.cache.rows("Logical_Switch_Port").filter((p) => str(p.type) === "");
  const bindings = new Map(cluster.sb.cache.rows("Port_Binding").map((b) => [str(b.logical_port), b]));
  const nbGlobal = cluster.nb.cache.rows("NB_Global")[0];
  return {
    cluster: cluster.name,
    stale: isStale(cluster),
    suspended: cluster.suspended,
    nb: databaseSummary(cluster.nb.cache, cluster.nb.state, counted.nb),
    sb: databaseSummary(cluster.sb.cache, cluster.sb.state, counted.sb),
    chassis: { total: inventory.length, alive: inventory.filter((e) => e.alive).length, ...statuses },
    ports: {
      vif: vifs.length,
      bound: vifs.filter((p) => bindings.get(str(p.name))?.chassis != null).length,
      up: vifs.filter((p) => p.up === true).length,
    },
    propagation: {
      nb_cfg: num(nbGlobal?.nb_cfg),
      sb_cfg: num(nbGlobal?.sb_cfg),
      hv_cfg: num(nbGlobal?.hv_cfg),
    },
    raft: Object.fromEntries(raft.map((s) => [s.database, raftHealth(s).state])),
  };
}

/** Logical flow counts by datapath, pipeline and table; a flow on a datapath group counts for each member. */
export function flowCounts(sb: DatabaseCache) {
  const datapathName = new Map(
    sb.rows("Datapath_Binding").map((d) => {
      const ids = (d.external_ids ?? {}) as Record<string, string>;
      return [d._uuid, ids.name ?? null] as const;
    }),
  );
  const groups = new Map(sb.rows("Logical_DP_Group").map((g) => [g._uuid, (g.datapaths ?? []) as string[]]));
  const byDatapath = new Map<string, { own: number; shared: number }>();
  const byPipeline: Record<string, number> = {};
  const byTable = new Map<
    string,
    { pipeline: string; table_id: number; stage: string | null; flows: number }
  >();
  let grouped = 0;
  const flows = sb.rows("Logical_Flow");
  for (const flow of flows) {
    const pipeline = str(flow.pipeline);
    byPipeline[pipeline] = (byPipeline[pipeline] ?? 0) + 1;
    // A switch's and a router's stages share table numbers: the stage is part of the key.
    const stage = ((flow.external_ids ?? {}) as Record<string, string>)["stage-name"] ?? null;
    const key = `${pipeline}/${num(flow.table_id)}/${stage ?? ""}`;
    const table = byTable.get(key) ?? { pipeline, table_id: num(flow.table_id), stage, flows: 0 };
    table.flows++;
    byTable.set(key, table);
    const own = typeof flow.logical_datapath === "string" ? [flow.logical_datapath] : [];
    const shared = typeof flow.logical_dp_group === "string" ? (groups.get(flow.logical_dp_group) ?? []) : [];
    if (shared.length > 0) grouped++;
    for (const dp of own) {
      const c = byDatapath.get(dp) ?? { own: 0, shared: 0 };
      c.own++;
      byDatapath.set(dp, c);
    }
    for (const dp of shared) {
      const c = byDatapath.get(dp) ?? { own: 0, shared: 0 };
      c.shared++;
      byDatapath.set(dp, c);
    }
  }
  return {
    total: flows.length,
    on_datapath_groups: grouped,
    by_pipeline: byPipeline,
    by_datapath: [...byDatapath]
      .map(([uuid, c]) => ({
        datapath: uuid,
        name: datapathName.get(uuid) ?? null,
        flows: c.own + c.shared,
        own: c.own,
        shared: c.shared,
      }))
      .sort((a, b) => b.flows - a.flows || (a.datapath < b.datapath ? -1 : 1)),
    by_table: [...byTable.values()].sort(
      (a, b) =>
        compare(a.pipeline, b.pipeline) || a.table_id - b.table_id || compare(a.stage ?? "", b.stage ?? ""),
    ),
  };
}

const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);

/** nb_cfg where it is now: NB_Global, SB_Global and every chassis, with the time each took. */
export function propagation(cluster: Cluster, gens: readonly Generation[]) {
  const nb = cluster.nb.cache.rows("NB_Global")[0] as Row | undefined;
  const sbGlobal = cluster.sb.cache.rows("SB_Global")[0] as Row | undefined;
  const globalCfg = num(nb?.nb_cfg);
  const started = new Map(gens.map((g) => [g.nb_cfg, g]));
  const chassis = cluster.sb.cache
    .rows("Chassis_Private")
    .map((row) => {
      const nbCfg = num(row.nb_cfg);
      const gen = started.get(nbCfg);
      const at = gen?.chassis[str(row.name)];
      return {
        name: str(row.name),
        nb_cfg: nbCfg,
        nb_cfg_timestamp: iso(num(row.nb_cfg_timestamp)),
        behind: Math.max(0, globalCfg - nbCfg),
        in_sync: nbCfg === globalCfg,
        /** How long this chassis took to reach the generation it is at, when netview saw it start. */
        delay_ms: gen === undefined || at === undefined ? null : Math.max(0, at - gen.started_at),
      };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const last = gens[gens.length - 1];
  return {
    cluster: cluster.name,
    nb: {
      nb_cfg: globalCfg,
      nb_cfg_timestamp: iso(num(nb?.nb_cfg_timestamp)),
      sb_cfg: num(nb?.sb_cfg),
      sb_cfg_timestamp: iso(num(nb?.sb_cfg_timestamp)),
      hv_cfg: num(nb?.hv_cfg),
      hv_cfg_timestamp: iso(num(nb?.hv_cfg_timestamp)),
    },
    sb: { nb_cfg: num(sbGlobal?.nb_cfg) },
    chassis,
    in_sync: chassis.filter((c) => c.in_sync).length,
    behind: chassis.filter((c) => !c.in_sync).length,
    current:
      last === undefined
        ? null
        : {
            nb_cfg: last.nb_cfg,
            started_at: new Date(last.started_at).toISOString(),
            sb_ms: last.sb_at === null ? null : Math.max(0, last.sb_at - last.started_at),
            hv_ms: last.hv_at === null ? null : Math.max(0, last.hv_at - last.started_at),
            /** Still travelling: since when, for alerts. */
            pending_ms: last.hv_at === null ? null : 0,
          },
  };
}
