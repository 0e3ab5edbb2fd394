/**
 * Who owns which address on one logical switch, as the northbound declares it: the switch ports'
 * addresses (static or dynamic, and virtual IPs) and the router ports attached to it. A segment is
 * `open` when hosts the northbound does not list can live on it (a localnet or vtep port, or a port
 * with `unknown` addresses), so an unlisted IP there is not a mistake. Used by the stale entries and
 * the next-hop resolution. Pure over the index.
 */
import { formatIpv4, formatIpv6, parseIpv4, parseIpv6, parseMac } from "../../ovn-logic/addresses.ts";
import { parseLspAddresses } from "../../ovn-logic/logical-network.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { NetworkIndex } from "../views/network-index.ts";
import { str, strMap, strs } from "../views/row-values.ts";

export interface Ip {
  family: 4 | 6;
  value: bigint;
}

export function parseIp(text: string): Ip | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIpv6(text);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

export const formatIpOf = (ip: Ip): string => (ip.family === 4 ? formatIpv4(ip.value) : formatIpv6(ip.value));

export interface Host {
  /** The switch port, or the router port behind a router-type switch port. */
  port: string;
  kind: "logical_switch_port" | "logical_router_port";
  mac: bigint;
  ips: Ip[];
}

interface Segment {
  hosts: Host[];
  open: boolean;
}

const openTypes = new Set(["localnet", "vtep", "l2gateway", "external"]);

/** `10.0.0.1/24` → the address and its prefix length. */
export function parseNetwork(text: string): { ip: Ip; plen: number } | undefined {
  const [addr = "", plen] = text.split("/");
  const ip = parseIp(addr);
  if (ip === undefined) return undefined;
  return { ip, plen: plen === undefined ? (ip.family === 4 ? 32 : 128) : Number(plen) };
}

export function inNetwork(ip: Ip, network: { ip: Ip; plen: number }): boolean {
  if (ip.family !== network.ip.family) return false;
  const width = BigInt(ip.family === 4 ? 32 : 128);
  const shift = width - BigInt(network.plen);
  return ip.value >> shift === network.ip.value >> shift;
}

/** The addresses a switch port declares (static, dynamic), one host per MAC. */
export function portHosts(lsp: Row): Host[] {
  const texts = strs(lsp.addresses).flatMap((a) =>
    a === "dynamic" && typeof lsp.dynamic_addresses === "string" ? [lsp.dynamic_addresses] : [a],
  );
  const out: Host[] = [];
  for (const text of texts) {
    const parsed = parseLspAddresses(text);
    if (parsed === undefined) continue;
    out.push({
      port: str(lsp.name),
      kind: "logical_switch_port",
      mac: parsed.mac,
      ips: [
        ...parsed.ipv4.map((value) => ({ family: 4 as const, value })),
        ...parsed.ipv6.map((value) => ({ family: 6 as const, value })),
      ],
    });
  }
  return out;
}

export function segmentOf(ix: NetworkIndex, ls: Row): Segment {
  const hosts: Host[] = [];
  let open = false;
  for (const lsp of strs(ls.ports).flatMap((p) => ix.lsp.get(p) ?? [])) {
    const type = str(lsp.type);
    if (openTypes.has(type) || strs(lsp.addresses).includes("unknown")) open = true;
    if (type === "router") {
      const lrp = ix.lrpByName.get(strMap(lsp.options)["router-port"] ?? "");
      const mac = parseMac(str(lrp?.mac));
      if (lrp === undefined || mac === undefined) continue;
      const ips = strs(lrp.networks).flatMap((n) => parseNetwork(n)?.ip ?? []);
      hosts.push({ port: str(lrp.name), kind: "logical_router_port", mac, ips });
      continue;
    }
    hosts.push(...portHosts(lsp));
    const vip = parseIp(strMap(lsp.options)["virtual-ip"] ?? "");
    if (type === "virtual" && vip !== undefined) {
      // A virtual IP moves between its parents' MACs: any of them owns it.
      for (const parent of (strMap(lsp.options)["virtual-parents"] ?? "").split(",")) {
        const row = ix.lspByName.get(parent.trim());
        for (const h of row === undefined ? [] : portHosts(row))
          hosts.push({ ...h, port: str(lsp.name), ips: [vip] });
      }
    }
  }
  return { hosts, open };
}

/** segmentOf with each switch computed once (for one pass over many rows). */
export function segmentsOf(ix: NetworkIndex): (ls: Row) => Segment {
  const memo = new Map<string, Segment>();
  return (ls) => {
    let segment = memo.get(ls._uuid);
    if (segment === undefined) {
      segment = segmentOf(ix, ls);
      memo.set(ls._uuid, segment);
    }
    return segment;
  };
}

/** The switch behind each router port (through the router-type switch port naming it), by name. */
export function switchesOfRouterPorts(ix: NetworkIndex): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const lsp of ix.lsp.values()) {
    const lrp = strMap(lsp.options)["router-port"];
    const ls = ix.switchOfPort.get(lsp._uuid);
    if (str(lsp.type) === "router" && lrp !== undefined && ls !== undefined) out.set(lrp, ls);
  }
  return out;
}

export const sameIp = (a: Ip, b: Ip) => a.family === b.family && a.value === b.value;
