/**
 * Next-hop MAC resolution (`GET /api/v1/debug/nexthop-mac`): for a router and a destination IP, the
 * route the router takes (its connected networks and static routes of the main table, longest prefix
 * first, connected before static on a tie), the next hop and the port it leaves by, then the MAC the
 * router would put on the packet, looked up where OVN looks (decision 331): the addresses the
 * northbound declares on the port's segment (ovn-northd turns them into static ARP flows), the
 * northbound's Static_MAC_Binding, the southbound's learned MAC_Binding, a peer router port. Every
 * source that knows the IP is listed, and `conflict` says when they disagree. Pure over the index.
 */
import { formatMac, parseMac } from "../../ovn-logic/addresses.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { NetworkIndex } from "../views/network-index.ts";
import { str, strs } from "../views/row-values.ts";
import {
  type Ip,
  inNetwork,
  parseIp,
  parseNetwork,
  sameIp,
  segmentsOf,
  switchesOfRouterPorts,
} from "./segment.ts";

export interface Route {
  kind: "connected" | "static";
  prefix: string;
  nexthop: string | null;
  output_port: string;
  uuid: string | null;
}

interface MacCandidate {
  source:
    | "logical_switch_port"
    | "logical_router_port"
    | "static_mac_binding"
    | "mac_binding"
    | "peer_router_port";
  mac: string;
  /** The port or row that says so. */
  from: string;
  timestamp: number | null;
}

export interface NexthopMac {
  router: { uuid: string; name: string };
  ip: string;
  route: Route | null;
  /** ECMP: the other routes of the same prefix. */
  alternatives: Route[];
  nexthop: string | null;
  output_port: string | null;
  resolved: boolean;
  mac: string | null;
  source: MacCandidate["source"] | null;
  candidates: MacCandidate[];
  conflict: boolean;
  detail: string;
  /** What the router has that this answer does not apply (policies, source-IP routes, other tables). */
  not_applied: string[];
}

function routesOf(ix: NetworkIndex, lr: Row, ip: Ip): Route[] {
  const out: (Route & { plen: number })[] = [];
  const ports = strs(lr.ports).flatMap((p) => ix.lrp.get(p) ?? []);
  for (const p of ports)
    for (const n of strs(p.networks)) {
      const net = parseNetwork(n);
      if (net !== undefined && inNetwork(ip, net))
        out.push({
          kind: "connected",
          prefix: n,
          nexthop: null,
          output_port: str(p.name),
          uuid: null,
          plen: net.plen,
        });
    }
  for (const r of strs(lr.static_routes).flatMap((u) => ix.nb.get("Logical_Router_Static_Route", u) ?? [])) {
    if (str(r.route_table) !== "" || str(r.policy) === "src-ip") continue;
    const net = parseNetwork(str(r.ip_prefix));
    if (net === undefined || !inNetwork(ip, net)) continue;
    const nexthop = parseIp(str(r.nexthop));
    let port = typeof r.output_port === "string" ? r.output_port : "";
    if (port === "" && nexthop !== undefined)
      port =
        ports
          .find((p) =>
            strs(p.networks).some((n) => {
              const pn = parseNetwork(n);
              return pn !== undefined && inNetwork(nexthop, pn);
            }),
          )
          ?.name?.toString() ?? "";
    out.push({
      kind: "static",
      prefix: str(r.ip_prefix),
      nexthop: str(r.nexthop) || null,
      output_port: port,
      uuid: r._uuid,
      plen: net.plen,
    });
  }
  out.sort((a, b) => b.plen - a.plen || (a.kind === b.kind ? 0 : a.kind === "connected" ? -1 : 1));
  const best = out[0];
  return best === undefined
    ? []
    : out.filter((r) => r.plen === best.plen && r.kind === best.kind).map(({ plen: _, ...r }) => r);
}

function candidatesFor(ix: NetworkIndex, lrpName: string, nexthop: Ip): MacCandidate[] {
  const out: MacCandidate[] = [];
  const ls = switchesOfRouterPorts(ix).get(lrpName);
  if (ls !== undefined)
    for (const h of segmentsOf(ix)(ls).hosts)
      if (h.port !== lrpName && h.ips.some((x) => sameIp(x, nexthop)))
        out.push({ source: h.kind, mac: formatMac(h.mac), from: h.port, timestamp: null });
  for (const s of ix.nb.rows("Static_MAC_Binding"))
    if (str(s.logical_port) === lrpName && sameIpText(str(s.ip), nexthop))
      out.push({ source: "static_mac_binding", mac: normalMac(str(s.mac)), from: s._uuid, timestamp: null });
  for (const m of ix.sb.rows("MAC_Binding"))
    if ([lrpName, `cr-${lrpName}`].includes(str(m.logical_port)) && sameIpText(str(m.ip), nexthop))
      out.push({
        source: "mac_binding",
        mac: normalMac(str(m.mac)),
        from: m._uuid,
        timestamp: typeof m.timestamp === "number" ? m.timestamp : null,
      });
  const lrp = ix.lrpByName.get(lrpName);
  const peer = typeof lrp?.peer === "string" ? ix.lrpByName.get(lrp.peer) : undefined;
  if (
    peer !== undefined &&
    strs(peer.networks).some((n) => {
      const net = parseNetwork(n);
      return net !== undefined && sameIp(net.ip, nexthop);
    })
  )
    out.push({
      source: "peer_router_port",
      mac: normalMac(str(peer.mac)),
      from: str(peer.name),
      timestamp: null,
    });
  return out;
}

const sameIpText = (text: string, ip: Ip) => {
  const x = parseIp(text);
  return x !== undefined && sameIp(x, ip);
};
const normalMac = (text: string) => {
  const m = parseMac(text);
  return m === undefined ? text : formatMac(m);
};

function notApplied(ix: NetworkIndex, lr: Row): string[] {
  const routes = strs(lr.static_routes).flatMap((u) => ix.nb.get("Logical_Router_Static_Route", u) ?? []);
  const out: string[] = [];
  const policies = strs(lr.policies).length;
  const srcIp = routes.filter((r) => str(r.policy) === "src-ip").length;
  const tables = routes.filter((r) => str(r.route_table) !== "").length;
  if (policies > 0) out.push(`${policies} router policies`);
  if (srcIp > 0) out.push(`${srcIp} source-IP routes`);
  if (tables > 0) out.push(`${tables} routes of other route tables`);
  return out;
}

/** `port`: resolve `ip` on this router port directly, without a route lookup. */
export function nexthopMac(ix: NetworkIndex, lr: Row, ipText: string, port?: string): NexthopMac {
  const ip = parseIp(ipText);
  const out: NexthopMac = {
    router: { uuid: lr._uuid, name: str(lr.name) },
    ip: ipText,
    route: null,
    alternatives: [],
    nexthop: null,
    output_port: null,
    resolved: false,
    mac: null,
    source: null,
    candidates: [],
    conflict: false,
    detail: "",
    not_applied: notApplied(ix, lr),
  };
  if (ip === undefined) throw new Error("nexthopMac: the caller checks the IP");
  let nexthop = ip;
  let lrpName = port;
  if (lrpName === undefined) {
    const [route, ...others] = routesOf(ix, lr, ip);
    if (route === undefined) {
      out.detail = `${str(lr.name)} has no route to ${ipText}`;
      return out;
    }
    out.route = route;
    out.alternatives = others;
    lrpName = route.output_port;
    if (route.nexthop !== null) nexthop = parseIp(route.nexthop) ?? ip;
  }
  out.nexthop = out.route?.nexthop ?? ipText;
  out.output_port = lrpName || null;
  if (lrpName === "") {
    out.detail = `no port of ${str(lr.name)} is on the network of next hop ${out.nexthop}`;
    return out;
  }
  out.candidates = candidatesFor(ix, lrpName, nexthop);
  const first = out.candidates[0];
  out.conflict = new Set(out.candidates.map((c) => c.mac)).size > 1;
  if (first === undefined) {
    out.detail = `no MAC known for ${out.nexthop} on ${lrpName}: the router would send ${nexthop.family === 4 ? "an ARP request" : "a neighbour solicitation"} and hold the packet`;
    return out;
  }
  out.resolved = true;
  out.mac = first.mac;
  out.source = first.source;
  out.detail = `${out.nexthop} is ${first.mac} on ${lrpName} (${first.source.replaceAll("_", " ")} ${first.from})${out.conflict ? "; the sources disagree" : ""}`;
  return out;
}
