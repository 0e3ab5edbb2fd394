/**
 * What `GET /api/v1/debug/trace` reads: either a raw microflow in OVN's expression language, or a
 * packet described by its inport and header fields, with the addresses a person would otherwise have
 * to look up filled in from the port (its MAC and IP) and from the destination (the MAC of the port
 * that owns the destination IP on the same switch, else of the switch's router port). Pure over the
 * logical network; a caller's mistake is a ValidationError naming every bad parameter.
 */
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { formatIpv4, formatIpv6, formatMac, parseMac } from "../../ovn-logic/addresses.ts";
import type { TracePort } from "../../ovn-logic/logical-network.ts";
import { parseLspAddresses } from "../../ovn-logic/logical-network.ts";
import { parseCtState, parseLbDst, type TraceOptions } from "../../ovn-logic/trace-options.ts";
import { TraceError } from "../../ovn-logic/trace-tree.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { int, list, type ParamSpec, type QueryValue, str } from "../query-params.ts";
import { parseIp } from "./segment.ts";

const protocols = ["tcp", "udp", "sctp", "icmp", "arp", "nd", "ip"] as const;
type Protocol = (typeof protocols)[number];

export const packetParams: ParamSpec[] = [
  {
    name: "inport",
    type: "string",
    description: "Logical port the packet enters by (name, external_ids:name or UUID prefix)",
  },
  { name: "eth_src", type: "string", description: "Source MAC (default: the inport's)" },
  {
    name: "eth_dst",
    type: "string",
    description: "Destination MAC (default: the port owning ip_dst on the switch, else its router port)",
  },
  {
    name: "ip_src",
    type: "string",
    description: "Source IPv4 or IPv6 address (default: the inport's, same family as ip_dst)",
  },
  { name: "ip_dst", type: "string", description: "Destination IPv4 or IPv6 address" },
  {
    name: "protocol",
    type: "string",
    enum: protocols,
    default: "tcp",
    description:
      "tcp, udp, sctp, icmp (echo request), arp (request), nd (neighbour solicitation) or ip (no transport header)",
  },
  {
    name: "src_port",
    type: "integer",
    minimum: 0,
    maximum: 65535,
    description: "Transport source port (default 40000)",
  },
  {
    name: "dst_port",
    type: "integer",
    minimum: 0,
    maximum: 65535,
    description: "Transport destination port (default 80 for tcp, 53 for udp and sctp)",
  },
  {
    name: "ttl",
    type: "integer",
    minimum: 0,
    maximum: 255,
    description: "IP TTL / hop limit (default 64; 255 for nd)",
  },
];

export const traceOptionParams: ParamSpec[] = [
  {
    name: "microflow",
    type: "string",
    description:
      'The packet in OVN\'s expression language, as ovn-trace takes it (instead of inport and fields), e.g. inport == "p1" && eth.src == 00:00:00:00:00:01 && ...',
  },
  {
    name: "datapath",
    type: "string",
    description: "Datapath to start in (name or UUID prefix; default: the inport's)",
  },
  {
    name: "ct",
    type: "string",
    repeated: true,
    description:
      "Connection-tracking state handed to each ct_next/ct_lb/NAT in turn, e.g. ct=new&ct=est,rpl (trk is implied; then est|trk), as ovn-trace --ct",
  },
  {
    name: "lb_dst",
    type: "string",
    description:
      "Load-balancer backend to choose, IP[:PORT] or [IPv6]:PORT (default: the first), as ovn-trace --lb-dst",
  },
  {
    name: "select_id",
    type: "integer",
    minimum: 1,
    maximum: 65535,
    description: "Member of a select() group to choose (default: the first), as ovn-trace --select-id",
  },
];

export interface TraceRequest {
  microflow: string;
  options: TraceOptions & { datapath?: string };
}

interface PortAddresses {
  mac: bigint | undefined;
  ipv4: bigint[];
  ipv6: bigint[];
}

/** A port's addresses from its SB `mac` column (`router` and `unknown` entries carry none). */
function addressesOf(pb: Row | undefined): PortAddresses {
  const out: PortAddresses = { mac: undefined, ipv4: [], ipv6: [] };
  for (const text of Array.isArray(pb?.mac) ? pb.mac.map(String) : []) {
    const parsed = parseLspAddresses(text);
    if (parsed === undefined) continue;
    out.mac ??= parsed.mac;
    out.ipv4.push(...parsed.ipv4);
    out.ipv6.push(...parsed.ipv6);
  }
  return out;
}

interface PortRows {
  /** SB Port_Binding by logical port name. */
  binding(name: string): Row | undefined;
}

/** Reads the trace parameters; `lookupPort` finds the inport (name, name2, UUID prefix). */
export function traceRequest(
  query: Record<string, QueryValue>,
  rows: PortRows,
  lookupPort: (name: string) => TracePort | undefined,
): TraceRequest {
  const problems: { loc: string; msg: string }[] = [];
  const bad = (name: string, msg: string) => problems.push({ loc: `query.${name}`, msg });
  const options: TraceRequest["options"] = {};
  const datapath = str(query.datapath);
  if (datapath !== undefined) options.datapath = datapath;
  const ct: bigint[] = [];
  for (const state of list(query.ct)) {
    try {
      ct.push(parseCtState(state));
    } catch (error) {
      bad("ct", (error as TraceError).message);
    }
  }
  if (ct.length > 0) options.ct = ct;
  const lbDst = str(query.lb_dst);
  if (lbDst !== undefined) {
    try {
      options.lbDst = parseLbDst(lbDst);
    } catch (error) {
      bad("lb_dst", (error as TraceError).message);
    }
  }
  const selectId = int(query.select_id);
  if (selectId !== undefined) options.selectId = selectId;

  const raw = str(query.microflow);
  const fields = packetParams.filter((p) => p.name !== "protocol").some((p) => query[p.name] !== undefined);
  let microflow = "";
  if (raw !== undefined) {
    if (fields) bad("microflow", "give either microflow or inport and packet fields, not both");
    if (raw.trim() === "") bad("microflow", "must not be empty");
    microflow = raw;
  } else {
    microflow = packetMicroflow(query, rows, lookupPort, bad) ?? "";
  }
  if (problems.length > 0)
    throw new ValidationError(
      `invalid query: ${problems.map((p) => `${p.loc.slice(6)}: ${p.msg}`).join("; ")}`,
      problems,
    );
  return { microflow, options };
}

function packetMicroflow(
  query: Record<string, QueryValue>,
  rows: PortRows,
  lookupPort: (name: string) => TracePort | undefined,
  bad: (name: string, msg: string) => void,
): string | undefined {
  const inportName = str(query.inport);
  if (inportName === undefined) {
    bad("inport", "is required (or give microflow)");
    return undefined;
  }
  const inport = lookupPort(inportName);
  if (inport === undefined) {
    bad("inport", `unknown logical port ${JSON.stringify(inportName)}`);
    return undefined;
  }
  const protocol = (str(query.protocol) ?? "tcp") as Protocol;
  const own = addressesOf(rows.binding(inport.name));
  const mac = (name: string, fallback: bigint | undefined): bigint | undefined => {
    const text = str(query[name]);
    if (text === undefined) return fallback;
    const v = parseMac(text);
    if (v === undefined) bad(name, "must be a MAC address (xx:xx:xx:xx:xx:xx)");
    return v;
  };
  const ipParam = (name: string): { family: 4 | 6; value: bigint } | undefined => {
    const text = str(query[name]);
    if (text === undefined) return undefined;
    const v = parseIp(text);
    if (v === undefined) bad(name, "must be an IPv4 or IPv6 address");
    return v;
  };
  const dst = ipParam("ip_dst");
  if (dst === undefined) {
    if (str(query.ip_dst) === undefined) bad("ip_dst", "is required");
    return undefined;
  }
  let src = ipParam("ip_src");
  if (src === undefined && str(query.ip_src) === undefined) {
    const mine = dst.family === 4 ? own.ipv4[0] : own.ipv6[0];
    if (mine === undefined) {
      bad("ip_src", `is required: port ${inport.name} has no IPv${dst.family} address`);
      return undefined;
    }
    src = { family: dst.family, value: mine };
  }
  if (src === undefined) return undefined;
  if (src.family !== dst.family) {
    bad("ip_src", "must be of the same family as ip_dst");
    return undefined;
  }
  if (protocol === "arp" && dst.family !== 4) bad("protocol", "arp needs IPv4 addresses (use nd for IPv6)");
  if (protocol === "nd" && dst.family !== 6) bad("protocol", "nd needs IPv6 addresses (use arp for IPv4)");
  const ethSrc = mac("eth_src", own.mac);
  if (ethSrc === undefined) {
    if (str(query.eth_src) === undefined)
      bad("eth_src", `is required: port ${inport.name} has no MAC address`);
    return undefined;
  }
  const solicited = (0xff02n << 112n) | (0x1ffn << 24n) | (dst.value & 0xffffffn);
  const ethDst = mac(
    "eth_dst",
    protocol === "arp"
      ? 0xffffffffffffn
      : protocol === "nd"
        ? (0x3333n << 32n) | (solicited & 0xffffffffn)
        : destinationMac(inport, dst, rows),
  );
  if (ethDst === undefined) {
    if (str(query.eth_dst) === undefined)
      bad("eth_dst", "is required: no port on the switch owns ip_dst and the switch has no router port");
    return undefined;
  }
  const ip = (v: { family: 4 | 6; value: bigint }) =>
    v.family === 4 ? formatIpv4(v.value) : formatIpv6(v.value);
  const head = `inport == ${JSON.stringify(inport.name)} && eth.src == ${formatMac(ethSrc)} && eth.dst == ${formatMac(ethDst)}`;
  if (protocol === "arp")
    return `${head} && arp.op == 1 && arp.sha == ${formatMac(ethSrc)} && arp.spa == ${ip(src)} && arp.tpa == ${ip(dst)}`;
  const ttl = int(query.ttl) ?? (protocol === "nd" ? 255 : 64);
  if (protocol === "nd")
    return `${head} && ip6.src == ${ip(src)} && ip6.dst == ${formatIpv6(solicited)} && ip.ttl == ${ttl} && icmp6.type == 135 && icmp6.code == 0 && nd.target == ${ip(dst)} && nd.sll == ${formatMac(ethSrc)}`;
  const v = dst.family === 4 ? "ip4" : "ip6";
  let l4 = "";
  const srcPort = int(query.src_port) ?? 40000;
  switch (protocol) {
    case "tcp":
    case "udp":
    case "sctp":
      l4 = ` && ${protocol}.src == ${srcPort} && ${protocol}.dst == ${int(query.dst_port) ?? (protocol === "tcp" ? 80 : 53)}`;
      break;
    case "icmp":
      l4 =
        dst.family === 4
          ? " && icmp4.type == 8 && icmp4.code == 0"
          : " && icmp6.type == 128 && icmp6.code == 0";
      break;
    default:
      l4 = ` && ${v}`;
  }
  return `${head} && ${v}.src == ${ip(src)} && ${v}.dst == ${ip(dst)} && ip.ttl == ${ttl}${l4}`;
}

/** The MAC of the port owning `dst` on the inport's switch, else of the router behind that switch. */
function destinationMac(
  inport: TracePort,
  dst: { family: 4 | 6; value: bigint },
  rows: PortRows,
): bigint | undefined {
  let router: bigint | undefined;
  for (const port of inport.datapath.ports) {
    const a = addressesOf(rows.binding(port.name));
    if ((dst.family === 4 ? a.ipv4 : a.ipv6).includes(dst.value)) return a.mac;
    if (port.peer !== undefined && router === undefined)
      router = addressesOf(rows.binding(port.peer.name)).mac;
  }
  return router;
}

export { TraceError };
