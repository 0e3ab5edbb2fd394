/**
 * Stale entries (`GET /api/v1/debug/stale-entries`): southbound rows that no longer describe the
 * network the northbound declares. MAC bindings whose port is gone, whose IP no port owns any more
 * on a segment where every host is declared, or whose MAC is not the owner's; FDB entries whose
 * datapath or port is gone or whose MAC a port of another name declares; port bindings and datapaths
 * with no northbound object behind them (left when ovn-northd was not running as ports were removed);
 * Chassis_Private rows without their chassis (decision 329). Pure over the index.
 */
import { formatMac, parseMac } from "../../ovn-logic/addresses.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { NetworkIndex } from "../views/network-index.ts";
import { num, str, strMap, strs } from "../views/row-values.ts";
import { inNetwork, parseIp, parseNetwork, sameIp, segmentsOf, switchesOfRouterPorts } from "./segment.ts";

export const staleKinds = [
  "mac_binding",
  "fdb",
  "port_binding",
  "datapath_binding",
  "chassis_private",
] as const;
export type StaleKind = (typeof staleKinds)[number];

interface StaleEntry {
  kind: StaleKind;
  uuid: string;
  reason: string;
  detail: string;
  /** The row's identifying columns (logical port, IP, MAC, keys, name). */
  row: Record<string, string | number | null>;
}

interface StaleEntries {
  summary: Record<StaleKind | "total", number>;
  returned: number;
  truncated: boolean;
  entries: StaleEntry[];
}

/** Decision 329: entries per answer by default and at most. */
export const staleLimit = { default: 1000, max: 10_000 } as const;

/** The port binding's NB object, if it still has one (a chassisredirect port through its LRP). */
function hasNbPort(ix: NetworkIndex, pb: Row): boolean {
  const name = str(pb.logical_port);
  if (str(pb.type) === "chassisredirect")
    return ix.lrpByName.has(strMap(pb.options)["distributed-port"] ?? "");
  return ix.lspByName.has(name) || ix.lrpByName.has(name);
}

function macBindings(ix: NetworkIndex, add: (e: StaleEntry) => void): void {
  const switchOf = switchesOfRouterPorts(ix);
  const segmentOf = segmentsOf(ix);
  for (const m of ix.sb.rows("MAC_Binding")) {
    const port = str(m.logical_port);
    const row = { logical_port: port, ip: str(m.ip), mac: str(m.mac) };
    const entry = (reason: string, detail: string) =>
      add({ kind: "mac_binding", uuid: m._uuid, reason, detail, row });
    if (typeof m.datapath !== "string" || ix.sb.get("Datapath_Binding", m.datapath) === undefined) {
      entry("datapath_gone", "its datapath no longer exists");
      continue;
    }
    const pb = ix.pbByName.get(port);
    if (pb === undefined || !hasNbPort(ix, pb)) {
      entry("port_gone", `router port ${port} no longer exists`);
      continue;
    }
    // A gateway's chassisredirect port learns for its distributed port.
    const lrpName =
      str(pb.type) === "chassisredirect" ? (strMap(pb.options)["distributed-port"] ?? "") : port;
    const lrp = ix.lrpByName.get(lrpName);
    const ls = switchOf.get(lrpName);
    const ip = parseIp(str(m.ip));
    if (lrp === undefined || ls === undefined || ip === undefined) continue;
    const segment = segmentOf(ls);
    const owners = segment.hosts.filter((h) => h.ips.some((x) => sameIp(x, ip)));
    const mac = parseMac(str(m.mac));
    if (owners.length > 0) {
      if (mac !== undefined && !owners.some((o) => o.mac === mac))
        entry(
          "mac_mismatch",
          `${str(m.ip)} belongs to ${owners.map((o) => `${o.port} (${formatMac(o.mac)})`).join(", ")}, not to ${str(m.mac)}`,
        );
      continue;
    }
    const onLink = strs(lrp.networks).some((n) => {
      const net = parseNetwork(n);
      return net !== undefined && inNetwork(ip, net);
    });
    if (!segment.open && onLink)
      entry(
        "ip_unowned",
        `no port of ${str(ls.name)} has ${str(m.ip)} any more, and every host there is declared (no localnet or unknown-address port)`,
      );
  }
}

function fdbEntries(ix: NetworkIndex, add: (e: StaleEntry) => void): void {
  const segmentOf = segmentsOf(ix);
  const dpByKey = new Map(ix.sb.rows("Datapath_Binding").map((d) => [num(d.tunnel_key), d]));
  for (const f of ix.sb.rows("FDB")) {
    const row = { mac: str(f.mac), dp_key: num(f.dp_key), port_key: num(f.port_key) };
    const entry = (reason: string, detail: string) =>
      add({ kind: "fdb", uuid: f._uuid, reason, detail, row });
    const dp = dpByKey.get(num(f.dp_key));
    if (dp === undefined) {
      entry("datapath_gone", `no datapath has tunnel key ${num(f.dp_key)}`);
      continue;
    }
    const pb = (ix.pbsOfDatapath.get(dp._uuid) ?? []).find((p) => num(p.tunnel_key) === num(f.port_key));
    if (pb === undefined || !hasNbPort(ix, pb)) {
      entry(
        "port_gone",
        pb === undefined
          ? `no port of datapath ${num(f.dp_key)} has tunnel key ${num(f.port_key)}`
          : `port ${str(pb.logical_port)} is gone from the northbound`,
      );
      continue;
    }
    const ls = ix.nbOfDatapath.get(dp._uuid);
    const mac = parseMac(str(f.mac));
    if (ls === undefined || mac === undefined || !ix.ls.has(ls._uuid)) continue;
    const owner = segmentOf(ls).hosts.find((h) => h.mac === mac);
    if (owner !== undefined && owner.port !== str(pb.logical_port))
      entry(
        "mac_owned_elsewhere",
        `${str(f.mac)} is declared by ${owner.port}, but the entry sends it to ${str(pb.logical_port)}`,
      );
  }
}

export function staleEntries(ix: NetworkIndex, query: { kind?: StaleKind; limit: number }): StaleEntries {
  const all: StaleEntry[] = [];
  const add = (e: StaleEntry) => all.push(e);
  macBindings(ix, add);
  fdbEntries(ix, add);
  for (const pb of ix.pb.values())
    if (!hasNbPort(ix, pb))
      add({
        kind: "port_binding",
        uuid: pb._uuid,
        reason: "no_nb_port",
        detail: `no logical switch or router port is named ${str(pb.logical_port)} (is ovn-northd running?)`,
        row: { logical_port: str(pb.logical_port), type: str(pb.type), tunnel_key: num(pb.tunnel_key) },
      });
  for (const dp of ix.sb.rows("Datapath_Binding")) {
    const ids = strMap(dp.external_ids);
    const nb = ids["logical-switch"] ?? ids["logical-router"];
    if (nb !== undefined && !ix.ls.has(nb) && !ix.lr.has(nb))
      add({
        kind: "datapath_binding",
        uuid: dp._uuid,
        reason: "no_nb_owner",
        detail: `the ${ids["logical-switch"] === undefined ? "router" : "switch"} ${nb} is gone from the northbound`,
        row: { tunnel_key: num(dp.tunnel_key), name: ids.name ?? null },
      });
  }
  for (const cp of ix.sb.rows("Chassis_Private"))
    if (!ix.chassisByName.has(str(cp.name)))
      add({
        kind: "chassis_private",
        uuid: cp._uuid,
        reason: "no_chassis",
        detail: `no chassis is named ${str(cp.name)}`,
        row: { name: str(cp.name) },
      });
  const summary = { total: all.length } as StaleEntries["summary"];
  for (const k of staleKinds) summary[k] = all.filter((e) => e.kind === k).length;
  const matching = all.filter((e) => query.kind === undefined || e.kind === query.kind);
  const entries = matching.slice(0, query.limit);
  return { summary, returned: entries.length, truncated: matching.length > entries.length, entries };
}
