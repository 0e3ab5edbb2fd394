/**
 * What a trace reads from the southbound database, gathered once per SB version as ovn-trace's
 * `read_db` does: datapaths (with their friendly names), logical ports (patch peers, chassisredirect
 * distributed ports, port security), multicast groups, address sets, port groups, MAC bindings, FDB
 * entries and load-balancer VIPs. Logical flows are compiled per datapath on first use and memoised
 * per row, because a trace touches a few datapaths out of hundreds.
 */

import { compare } from "../../foundation/collections/compare.ts";
import type { ColumnValue, Row } from "../ovsdb/datum.ts";
import type { Action, Pipeline } from "./action.ts";
import { parseActions } from "./action-parser.ts";
import { parseIpv4, parseIpv6, parseMac } from "./addresses.ts";
import { type AExpr, annotate, combine, parseExpr, simplify } from "./expr.ts";
import { idlRowOrder } from "./idl-row-order.ts";
import { nextToken } from "./lexer.ts";
import { symtab } from "./symbols.ts";

/** Rows of an SB table (a DatabaseCache, a snapshot, or plain arrays in a test). */
interface SbRows {
  rows(table: string): Row[];
}

export interface PortSecurity {
  mac: bigint;
  ipv4: bigint[];
  ipv6: bigint[];
}

export interface TracePort {
  uuid: string;
  name: string;
  name2: string | undefined;
  friendlyName: string;
  type: string;
  tunnelKey: number;
  datapath: TraceDatapath;
  peer: TracePort | undefined;
  distributedPort: TracePort | undefined;
  portSecurity: PortSecurity[];
  chassis: string | undefined;
  up: boolean | undefined;
}

interface McGroup {
  name: string;
  tunnelKey: number;
  ports: TracePort[];
}

export interface CompiledFlow {
  uuid: string;
  pipeline: Pipeline;
  table: number;
  priority: number;
  stageName: string | undefined;
  source: string | undefined;
  /** external_ids:stage-hint, the first 32 bits of the NB row (an ACL, a NAT, ...) that made the flow. */
  stageHint: string | undefined;
  /** The match as stored, port names made friendly. */
  matchText: string;
  match: AExpr;
  actions: Action[];
  /** The match is just `1` (after simplification): such a flow with only `next;` is skipped in a trace. */
  matchIsTrue: boolean;
}

export interface TraceDatapath {
  uuid: string;
  nbUuid: string;
  name: string;
  name2: string | undefined;
  friendlyName: string;
  tunnelKey: number;
  kind: "switch" | "router" | "other";
  mcgroups: McGroup[];
  hasLocalL3gateway: boolean;
  /** `${portKey}/${ip as 128-bit}` → MAC. */
  macBindings: Map<string, bigint>;
  /** MAC → port key. */
  fdb: Map<bigint, number>;
  ports: TracePort[];
  /** Flow rows of the datapath (own and through datapath groups), compiled on demand. */
  flowRows: Row[];
  /** Flows that failed to compile, with the reason (ovn-trace skips them the same way). */
  skipped: { uuid: string; error: string }[];
}

export interface LbVip {
  family: 4 | 6;
  ip: bigint;
  port: number;
  text: string;
}

export interface LogicalNetwork {
  datapaths: TraceDatapath[];
  datapathByUuid: Map<string, TraceDatapath>;
  ports: Map<string, TracePort>;
  addressSets: Map<string, string[]>;
  portGroups: Map<string, string[]>;
  lbVips: LbVip[];
  /** Changes whenever an address set or port group does: compiled flows depend on them. */
  setsEpoch: string;
  /**
   * Each logical flow's place in the order ovn-trace's IDL iterates them, which decides between
   * overlapping flows of equal priority (idl-row-order.ts, decision 337); computed on first use.
   */
  flowOrder: () => ReadonlyMap<string, number>;
}

const str = (v: ColumnValue | undefined): string => (typeof v === "string" ? v : "");
const num = (v: ColumnValue | undefined): number => (typeof v === "number" ? v : 0);
const map = (v: ColumnValue | undefined): Record<string, string> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, string>) : {};
const arr = (v: ColumnValue | undefined): string[] => (Array.isArray(v) ? v.map(String) : []);
const uuidRe = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** shorten_uuid: a name ending in a UUID keeps only the UUID's first 6 characters. */
function shortenUuid(s: string): string {
  return uuidRe.test(s) ? s.slice(0, s.length - 30) : s;
}

/** extract_lsp_addresses: `MAC [IP[/plen] ...]`, undefined when the MAC is missing. */
export function parseLspAddresses(text: string): PortSecurity | undefined {
  const words = text.trim().split(/\s+/);
  const mac = parseMac(words[0] ?? "");
  if (mac === undefined) return undefined;
  const out: PortSecurity = { mac, ipv4: [], ipv6: [] };
  for (const word of words.slice(1)) {
    const ip = word.split("/")[0] ?? "";
    const v4 = parseIpv4(ip);
    if (v4 !== undefined) out.ipv4.push(v4);
    else {
      const v6 = parseIpv6(ip);
      if (v6 !== undefined) out.ipv6.push(v6);
    }
  }
  return out;
}

/** ip_address_and_port_from_lb_key: `1.2.3.4:80`, `[::1]:80`, or an address alone. */
export function parseLbKey(key: string): LbVip | undefined {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(key);
  if (v6 !== null) {
    const ip = parseIpv6(v6[1] ?? "");
    return ip === undefined ? undefined : { family: 6, ip, port: Number(v6[2] ?? 0), text: v6[1] ?? "" };
  }
  const [host, port] = key.split(":");
  const v4 = parseIpv4(host ?? "");
  if (v4 !== undefined && key.split(":").length <= 2)
    return { family: 4, ip: v4, port: Number(port ?? 0), text: host ?? "" };
  const ip = parseIpv6(key);
  return ip === undefined ? undefined : { family: 6, ip, port: 0, text: key };
}

export function macBindingKey(portKey: number, ip: bigint): string {
  return `${portKey}/${ip.toString(16)}`;
}

/** An IPv4 address as the IPv4-mapped IPv6 address ovn-trace keys MAC bindings by. */
export const mappedIpv4 = (ip: bigint): bigint => (0xffffn << 32n) | ip;

function readDatapath(row: Row): TraceDatapath {
  const ids = map(row.external_ids);
  const nbUuid = ids["logical-switch"] ?? ids["logical-router"] ?? row._uuid;
  const name = ids.name ?? nbUuid;
  const name2 = ids.name2;
  return {
    uuid: row._uuid,
    nbUuid,
    name,
    name2,
    friendlyName: shortenUuid(name2 ?? name),
    tunnelKey: num(row.tunnel_key),
    kind:
      ids["logical-switch"] !== undefined
        ? "switch"
        : ids["logical-router"] !== undefined
          ? "router"
          : "other",
    mcgroups: [],
    hasLocalL3gateway: false,
    macBindings: new Map(),
    fdb: new Map(),
    ports: [],
    flowRows: [],
    skipped: [],
  };
}

/** Port_Binding rows as ports of their datapaths, patch and l3gateway peers joined, chassisredirect's distributed port found. */
function readPorts(
  pbRows: readonly Row[],
  datapathByUuid: ReadonlyMap<string, TraceDatapath>,
): Map<string, TracePort> {
  const ports = new Map<string, TracePort>();
  for (const row of pbRows) {
    const dp = datapathByUuid.get(str(row.datapath));
    const name = str(row.logical_port);
    if (dp === undefined || ports.has(name)) continue;
    const name2 = map(row.external_ids).name;
    const port: TracePort = {
      uuid: row._uuid,
      name,
      name2,
      friendlyName: shortenUuid(name2 ?? name),
      type: str(row.type),
      tunnelKey: num(row.tunnel_key),
      datapath: dp,
      peer: undefined,
      distributedPort: undefined,
      portSecurity: arr(row.port_security).flatMap((t) => parseLspAddresses(t) ?? []),
      chassis: typeof row.chassis === "string" ? row.chassis : undefined,
      up: typeof row.up === "boolean" ? row.up : undefined,
    };
    ports.set(name, port);
    dp.ports.push(port);
    if (port.type === "patch" || port.type === "l3gateway") {
      if (port.type === "l3gateway") dp.hasLocalL3gateway = true;
      const peer = ports.get(map(row.options).peer ?? "");
      if (peer !== undefined) {
        port.peer = peer;
        peer.peer = port;
      }
    }
  }
  for (const row of pbRows) {
    if (str(row.type) !== "chassisredirect") continue;
    const port = ports.get(str(row.logical_port));
    const distributed = ports.get(map(row.options)["distributed-port"] ?? "");
    if (port !== undefined && distributed !== undefined && distributed.datapath === port.datapath)
      port.distributedPort = distributed;
  }
  return ports;
}

function readMulticastGroups(
  sb: SbRows,
  pbRows: readonly Row[],
  datapathByUuid: ReadonlyMap<string, TraceDatapath>,
  ports: ReadonlyMap<string, TracePort>,
): void {
  const pbByUuid = new Map(pbRows.map((r) => [r._uuid, r]));
  for (const row of sb.rows("Multicast_Group")) {
    const dp = datapathByUuid.get(str(row.datapath));
    if (dp === undefined) continue;
    const members: TracePort[] = [];
    for (const ref of arr(row.ports)) {
      const pb = pbByUuid.get(ref);
      const p = pb === undefined ? undefined : ports.get(str(pb.logical_port));
      if (p !== undefined && p.datapath === dp) members.push(p);
    }
    members.sort((a, b) => compare(a.name, b.name));
    dp.mcgroups.push({ name: str(row.name), tunnelKey: num(row.tunnel_key), ports: members });
  }
}

/** Each logical flow row put on its datapath and on those of its datapath group; the flows' UUIDs in SB order. */
function readFlowRows(sb: SbRows, datapathByUuid: ReadonlyMap<string, TraceDatapath>): string[] {
  const groups = new Map<string, string[]>();
  for (const row of sb.rows("Logical_DP_Group")) groups.set(row._uuid, arr(row.datapaths));
  const flowUuids: string[] = [];
  for (const row of sb.rows("Logical_Flow")) {
    flowUuids.push(row._uuid);
    const own = typeof row.logical_datapath === "string" ? [row.logical_datapath] : [];
    const viaGroup = typeof row.logical_dp_group === "string" ? (groups.get(row.logical_dp_group) ?? []) : [];
    for (const dpUuid of [...own, ...viaGroup]) datapathByUuid.get(dpUuid)?.flowRows.push(row);
  }
  return flowUuids;
}

/** MAC_Binding and FDB rows onto their datapaths. */
function readLearnt(
  sb: SbRows,
  datapaths: readonly TraceDatapath[],
  ports: ReadonlyMap<string, TracePort>,
): void {
  for (const row of sb.rows("MAC_Binding")) {
    const port = ports.get(str(row.logical_port));
    if (port === undefined || port.datapath.uuid !== str(row.datapath)) continue;
    const ipText = str(row.ip);
    const v4 = parseIpv4(ipText);
    const ip = v4 !== undefined ? mappedIpv4(v4) : parseIpv6(ipText);
    const mac = parseMac(str(row.mac));
    if (ip === undefined || mac === undefined) continue;
    port.datapath.macBindings.set(macBindingKey(port.tunnelKey, ip), mac);
  }
  const byKey = new Map(datapaths.map((d) => [d.tunnelKey, d]));
  for (const row of sb.rows("FDB")) {
    const mac = parseMac(str(row.mac));
    const dp = byKey.get(num(row.dp_key));
    if (mac !== undefined && dp !== undefined) dp.fdb.set(mac, num(row.port_key));
  }
}

export function buildLogicalNetwork(sb: SbRows): LogicalNetwork {
  const datapaths = sb.rows("Datapath_Binding").map(readDatapath);
  const datapathByUuid = new Map(datapaths.map((dp) => [dp.uuid, dp]));
  const pbRows = sb.rows("Port_Binding");
  const ports = readPorts(pbRows, datapathByUuid);
  readMulticastGroups(sb, pbRows, datapathByUuid, ports);
  const addressSets = new Map<string, string[]>();
  for (const row of sb.rows("Address_Set")) addressSets.set(str(row.name), arr(row.addresses));
  const portGroups = new Map<string, string[]>();
  for (const row of sb.rows("Port_Group")) portGroups.set(str(row.name), arr(row.ports));
  const flowUuids = readFlowRows(sb, datapathByUuid);
  readLearnt(sb, datapaths, ports);
  const lbVips: LbVip[] = [];
  for (const row of sb.rows("Load_Balancer"))
    for (const key of Object.keys(map(row.vips))) {
      const vip = parseLbKey(key);
      if (vip !== undefined) lbVips.push(vip);
    }
  const setsEpoch = Bun.hash(JSON.stringify([[...addressSets], [...portGroups]])).toString(36);
  let order: Map<string, number> | undefined;
  const flowOrder = () => {
    order ??= idlRowOrder(flowUuids);
    return order;
  };
  return { datapaths, datapathByUuid, ports, addressSets, portGroups, lbVips, setsEpoch, flowOrder };
}

/** ovntrace_make_names_friendly: quoted port names in `text` replaced by their friendly names. */
export function friendlyNames(text: string, net: LogicalNetwork): string {
  let out = "";
  let pos = 0;
  try {
    for (;;) {
      const token = nextToken(text, pos);
      if (token.type === "end") break;
      const port = token.type === "string" ? net.ports.get(token.s) : undefined;
      out += text.slice(pos, token.start);
      out +=
        port !== undefined && port.friendlyName !== port.name
          ? JSON.stringify(port.friendlyName)
          : text.slice(token.start, token.end);
      pos = token.end;
    }
  } catch {
    // What the lexer cannot read is copied as it is.
  }
  return out + text.slice(pos);
}

function hasCondition(e: AExpr): boolean {
  return e.t === "cond" || ((e.t === "and" || e.t === "or") && e.subs.some(hasCondition));
}

function compileFlow(row: Row, dp: TraceDatapath, net: LogicalNetwork): CompiledFlow {
  const pipeline: Pipeline = str(row.pipeline) === "egress" ? "egress" : "ingress";
  const table = num(row.table_id);
  const ctx = { symtab, addressSets: net.addressSets, portGroups: net.portGroups, dpKey: dp.tunnelKey };
  const match = annotate(parseExpr(str(row.match), ctx), symtab);
  const parsed = parseActions(str(row.actions), { ...ctx, pipeline, table });
  // is_chassis_resident stays for evaluation time (ovn-trace calls every existing port resident).
  const full = simplify(combine("and", match, parsed.prereqs) as AExpr, () => true);
  const conditional = hasCondition(combine("and", match, parsed.prereqs) as AExpr);
  const ids = map(row.external_ids);
  return {
    uuid: row._uuid,
    pipeline,
    table,
    priority: num(row.priority),
    stageName: ids["stage-name"],
    source: ids.source,
    stageHint: ids["stage-hint"],
    matchText: friendlyNames(str(row.match), net),
    match: conditional ? (combine("and", match, parsed.prereqs) as AExpr) : full,
    actions: parsed.actions,
    matchIsTrue: !conditional && full.t === "bool" && full.b,
  };
}

const compiled = new WeakMap<Row, Map<string, CompiledFlow | Error>>();

/**
 * The datapath's flows, compiled and sorted as ovn-trace sorts them: ingress before egress, tables
 * ascending, priority descending, then in its IDL's order (stable qsort). A flow whose match or actions do not parse is left out and listed
 * in `dp.skipped`. The memo key covers what compilation reads besides the row: the address sets and
 * port groups, and the datapath key when the flow names a port group (`@name` is per datapath).
 */
export function flowsOf(dp: TraceDatapath, net: LogicalNetwork): CompiledFlow[] {
  const out: CompiledFlow[] = [];
  dp.skipped = [];
  for (const row of dp.flowRows) {
    const perDatapath = str(row.match).includes("@") || str(row.actions).includes("@");
    const key = perDatapath ? `${net.setsEpoch}/${dp.tunnelKey}` : net.setsEpoch;
    let memo = compiled.get(row);
    if (memo === undefined) {
      memo = new Map();
      compiled.set(row, memo);
    }
    let flow = memo.get(key);
    if (flow === undefined) {
      try {
        flow = compileFlow(row, dp, net);
      } catch (error) {
        flow = error instanceof Error ? error : new Error(String(error));
      }
      // Only the current epoch's compilations are worth keeping.
      for (const k of memo.keys()) if (!k.startsWith(net.setsEpoch)) memo.delete(k);
      memo.set(key, flow);
    }
    if (flow instanceof Error) dp.skipped.push({ uuid: row._uuid, error: flow.message });
    else out.push(flow);
  }
  const order = net.flowOrder();
  const place = (f: CompiledFlow) => order.get(f.uuid) ?? 0;
  out.sort((a, b) =>
    a.pipeline !== b.pipeline
      ? a.pipeline === "ingress"
        ? -1
        : 1
      : a.table !== b.table
        ? a.table - b.table
        : a.priority !== b.priority
          ? b.priority - a.priority
          : place(a) - place(b),
  );
  return out;
}
