/**
 * The chassis inventory: one entry per SB Chassis row, joined with its Encap, Chassis_Private,
 * SB_Global and Port_Binding rows. Pure over the SB cache and a clock, so it needs no connection of
 * its own.
 */

import { compare } from "../../foundation/collections/compare.ts";
import type { DatabaseCache } from "../ovsdb/database-cache.ts";
import type { ColumnValue, Row } from "../ovsdb/datum.ts";

interface TunnelEndpoint {
  type: string;
  ip: string;
  options: Record<string, string>;
}

interface PortSummary {
  bound: number;
  up: number;
  down: number;
  by_type: Record<string, number>;
}

/**
 * `sync_status` says in one word why `alive` is what it is: `in_sync`, `lagging` (out of sync within
 * the threshold), `stale` (beyond it), `no_private_row` (never reported), or `reports_disabled`
 * (SB_Global options:enable_chassis_nb_cfg_update=false, so nb_cfg says nothing; decision 307).
 */
export const syncStatuses = ["in_sync", "lagging", "stale", "no_private_row", "reports_disabled"] as const;
type SyncStatus = (typeof syncStatuses)[number];

export interface InventoryEntry {
  name: string;
  uuid: string;
  hostname: string;
  tunnel_endpoints: TunnelEndpoint[];
  bridge_mappings: Record<string, string>;
  nb_cfg: number | null;
  global_nb_cfg: number;
  in_sync: boolean;
  alive: boolean;
  age_ms: number | null;
  /** How long the chassis has been behind the global nb_cfg; 0 in sync, null when unknown. */
  lag_ms: number | null;
  stale: boolean;
  sync_status: SyncStatus;
  nb_cfg_reports_enabled: boolean;
  ports: PortSummary;
}

interface BoundPort {
  uuid: string;
  logical_port: string;
  type: string;
  up: boolean | null;
  datapath: string;
  datapath_name: string | null;
  tunnel_key: number;
}

interface InventoryDetail extends InventoryEntry {
  chassis_private: string | null;
  other_config: Record<string, ColumnValue>;
  external_ids: Record<string, ColumnValue>;
  private_external_ids: Record<string, ColumnValue>;
  transport_zones: ColumnValue;
  bound_ports: BoundPort[];
}

function str(value: ColumnValue | undefined): string {
  return typeof value === "string" ? value : "";
}

function num(value: ColumnValue | undefined): number | null {
  return typeof value === "number" ? value : null;
}

function obj(value: ColumnValue | undefined): Record<string, ColumnValue> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? { ...value } : {};
}

/** `physnet1:br-ex,physnet2:br-vlan` → `{physnet1: "br-ex", physnet2: "br-vlan"}`. */
export function parseBridgeMappings(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(",")) {
    const colon = pair.indexOf(":");
    if (colon <= 0) continue;
    out[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
  }
  return out;
}

interface Context {
  global: Row | undefined;
  privateByName: Map<string, Row>;
  portsByChassis: Map<string, Row[]>;
  reportsEnabled: boolean;
  globalNbCfg: number;
}

function context(sb: DatabaseCache): Context {
  const global = sb.rows("SB_Global")[0];
  const privateByName = new Map<string, Row>();
  for (const row of sb.rows("Chassis_Private")) privateByName.set(str(row.name), row);
  const portsByChassis = new Map<string, Row[]>();
  for (const pb of sb.rows("Port_Binding")) {
    if (typeof pb.chassis !== "string") continue;
    const list = portsByChassis.get(pb.chassis) ?? [];
    list.push(pb);
    portsByChassis.set(pb.chassis, list);
  }
  return {
    global,
    privateByName,
    portsByChassis,
    reportsEnabled: obj(global?.options).enable_chassis_nb_cfg_update !== "false",
    globalNbCfg: num(global?.nb_cfg) ?? 0,
  };
}

/**
 * `generationSinceMs` is when the server first saw SB_Global.nb_cfg at its current value (null when it
 * already was at the first sync). A chassis behind that generation lags since then; without it, since
 * its own last report.
 */
export interface InventoryClock {
  nowMs: number;
  staleMs: number;
  generationSinceMs: number | null;
}

function entry(sb: DatabaseCache, ctx: Context, chassis: Row, clock: InventoryClock): InventoryEntry {
  const { nowMs, staleMs } = clock;
  const name = str(chassis.name);
  const priv = ctx.privateByName.get(name);
  const nbCfg = priv === undefined ? null : num(priv.nb_cfg);
  const stamp = priv === undefined ? null : num(priv.nb_cfg_timestamp);
  const ageMs = stamp === null || stamp === 0 ? null : Math.max(0, nowMs - stamp);
  const inSync = nbCfg !== null && nbCfg === ctx.globalNbCfg;
  const alive = priv !== undefined && inSync;
  const lagSince = clock.generationSinceMs ?? stamp;
  const lagMs = inSync ? 0 : lagSince === null || lagSince === 0 ? null : Math.max(0, nowMs - lagSince);
  const beyond = lagMs === null || lagMs > staleMs;
  let status: SyncStatus;
  if (priv === undefined) status = "no_private_row";
  else if (!ctx.reportsEnabled) status = "reports_disabled";
  else if (inSync) status = "in_sync";
  else status = beyond ? "stale" : "lagging";
  const encaps = Array.isArray(chassis.encaps) ? chassis.encaps : [];
  const tunnels: TunnelEndpoint[] = [];
  for (const uuid of encaps) {
    const encap = sb.get("Encap", String(uuid));
    if (encap === undefined) continue;
    tunnels.push({
      type: str(encap.type),
      ip: str(encap.ip),
      options: obj(encap.options) as Record<string, string>,
    });
  }
  const config = { ...obj(chassis.external_ids), ...obj(chassis.other_config) };
  const ports = ctx.portsByChassis.get(chassis._uuid) ?? [];
  const byType: Record<string, number> = {};
  let up = 0;
  for (const pb of ports) {
    const type = str(pb.type) === "" ? "vif" : str(pb.type);
    byType[type] = (byType[type] ?? 0) + 1;
    if (pb.up === true) up++;
  }
  return {
    name,
    uuid: chassis._uuid,
    hostname: str(chassis.hostname),
    tunnel_endpoints: tunnels,
    bridge_mappings: parseBridgeMappings(str(config["ovn-bridge-mappings"])),
    nb_cfg: nbCfg,
    global_nb_cfg: ctx.globalNbCfg,
    in_sync: inSync,
    alive,
    age_ms: ageMs,
    lag_ms: lagMs,
    stale: status === "stale",
    sync_status: status,
    nb_cfg_reports_enabled: ctx.reportsEnabled,
    ports: { bound: ports.length, up, down: ports.length - up, by_type: byType },
  };
}

export function chassisInventory(sb: DatabaseCache, clock: InventoryClock): InventoryEntry[] {
  const ctx = context(sb);
  return sb
    .rows("Chassis")
    .map((c) => entry(sb, ctx, c, clock))
    .sort((a, b) => compare(a.name, b.name));
}

export function chassisDetail(
  sb: DatabaseCache,
  name: string,
  clock: InventoryClock,
): InventoryDetail | undefined {
  const chassis = sb.rows("Chassis").find((c) => c.name === name);
  if (chassis === undefined) return undefined;
  const ctx = context(sb);
  const priv = ctx.privateByName.get(name);
  const bound: BoundPort[] = (ctx.portsByChassis.get(chassis._uuid) ?? []).map((pb) => {
    const datapath = str(pb.datapath);
    const dp = sb.get("Datapath_Binding", datapath);
    const dpName = obj(dp?.external_ids).name;
    return {
      uuid: pb._uuid,
      logical_port: str(pb.logical_port),
      type: str(pb.type),
      up: typeof pb.up === "boolean" ? pb.up : null,
      datapath,
      datapath_name: typeof dpName === "string" ? dpName : null,
      tunnel_key: num(pb.tunnel_key) ?? 0,
    };
  });
  bound.sort((a, b) => (a.logical_port < b.logical_port ? -1 : 1));
  return {
    ...entry(sb, ctx, chassis, clock),
    chassis_private: priv?._uuid ?? null,
    other_config: obj(chassis.other_config),
    external_ids: obj(chassis.external_ids),
    private_external_ids: obj(priv?.external_ids),
    transport_zones: chassis.transport_zones ?? [],
    bound_ports: bound,
  };
}
