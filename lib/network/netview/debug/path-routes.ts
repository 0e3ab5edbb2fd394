/**
 * The path questions, at both browse prefixes: `/debug/connectivity` (can port A reach port B, and
 * the reply come back; where and why not) and `/debug/nexthop-mac` (which route and which MAC a
 * router uses for an address). Connectivity's two traces are kept with the recent traces, so their
 * every stage is one `/debug/traces/{id}` away.
 */
import { Elysia } from "elysia";
import { NotFoundError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { type BrowseContext, browsePrefixes, clusterOf } from "../browse-context.ts";
import type { InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { responses } from "../openapi-shapes.ts";
import { int, openapiParameters, type ParamSpec, type QueryValue, readQuery, str } from "../query-params.ts";
import { type ViewContext, viewContext } from "../views/correlated-routes.ts";
import type { NetworkIndex } from "../views/network-index.ts";
import { str as text } from "../views/row-values.ts";
import { type Connectivity, endpointBlockers, endpointOf, pathBlockers, pathResult } from "./connectivity.ts";
import { connectivitySchema, nexthopMacSchema } from "./debug-shapes.ts";
import { liveInterfaces } from "./diagnostics-routes.ts";
import { nexthopMac } from "./nexthop-mac.ts";
import { portDiagnosis } from "./port-diagnostics.ts";
import { formatIpOf, parseIp, portHosts } from "./segment.ts";
import type { TraceLog } from "./trace-log.ts";
import { runTrace } from "./trace-run.ts";
import { aclIndex, traceView } from "./trace-view.ts";

const connectivityProtocols = ["tcp", "udp", "sctp", "icmp", "ip"] as const;

const connectivityParams: ParamSpec[] = [
  { name: "src", type: "string", required: true, description: "Source logical switch port (name or uuid)" },
  {
    name: "dst",
    type: "string",
    required: true,
    description: "Destination logical switch port (name or uuid)",
  },
  {
    name: "protocol",
    type: "string",
    enum: connectivityProtocols,
    default: "tcp",
    description: "tcp, udp, sctp, icmp (echo) or ip (no transport header)",
  },
  {
    name: "family",
    type: "string",
    enum: ["4", "6"],
    description: "IP version (default: 4 when both ports have an IPv4 address, else 6)",
  },
  {
    name: "src_port",
    type: "integer",
    minimum: 0,
    maximum: 65535,
    description: "Source port (default 40000)",
  },
  {
    name: "dst_port",
    type: "integer",
    minimum: 0,
    maximum: 65535,
    description: "Destination port (default 80 for tcp, 53 otherwise)",
  },
];

const nexthopParams: ParamSpec[] = [
  { name: "router", type: "string", required: true, description: "Logical router (name or uuid)" },
  { name: "ip", type: "string", required: true, description: "Destination IPv4 or IPv6 address" },
  {
    name: "port",
    type: "string",
    description: "Resolve `ip` as a next hop on this router port directly (no route lookup)",
  },
];

const errors = {
  400: "invalid parameters",
  404: "unknown cluster, port or router",
  503: "the databases have not been synced yet",
};

/** Conntrack states for every ct_next of one direction: each port's zone sees the packet once. */
const ctStates = (state: string) => Array.from({ length: 16 }, () => state);

function switchPort(ix: NetworkIndex, name: string, param: string): Row {
  const row = ix.lsp.get(name) ?? ix.lspByName.get(name);
  if (row === undefined)
    throw new NotFoundError(`${param}: unknown logical switch port ${JSON.stringify(name)}`);
  return row;
}

interface PathRoutesOptions {
  clusters: ClusterSet;
  clockOf: (cluster: Cluster) => InventoryClock;
  traces: TraceLog;
  now: () => number;
}

/** The addresses and ports of the two packets: the ports' own addresses of one family. */
function packetOf(src: Row, dst: Row, q: Record<string, QueryValue>) {
  const ipsOf = (row: Row, family: 4 | 6) =>
    portHosts(row).flatMap((h) => h.ips.filter((ip) => ip.family === family));
  const asked = str(q.family);
  const family: 4 | 6 =
    asked !== undefined
      ? (Number(asked) as 4 | 6)
      : ipsOf(src, 4).length > 0 && ipsOf(dst, 4).length > 0
        ? 4
        : 6;
  const [srcIp] = ipsOf(src, family);
  const [dstIp] = ipsOf(dst, family);
  if (srcIp === undefined || dstIp === undefined)
    throw new ValidationError(
      `invalid query: family: ${srcIp === undefined ? "src" : "dst"} has no IPv${family} address`,
    );
  const protocol = str(q.protocol) ?? "tcp";
  const srcPort = int(q.src_port) ?? 40000;
  return {
    family,
    protocol,
    ips: [formatIpOf(srcIp), formatIpOf(dstIp)] as [string, string],
    l4: [srcPort, int(q.dst_port) ?? (protocol === "tcp" ? 80 : 53)] as [number, number],
    /** Whether the protocol has ports at all. */
    ported: ["tcp", "udp", "sctp"].includes(protocol),
  };
}

/** `/debug/connectivity`: both directions traced and kept with the recent traces, both ends diagnosed. */
function connectivity(view: ViewContext, url: string, o: PathRoutesOptions): Connectivity {
  const { ix, inventory, cluster } = view;
  const q = readQuery(url, connectivityParams);
  const src = switchPort(ix, str(q.src) ?? "", "src");
  const dst = switchPort(ix, str(q.dst) ?? "", "dst");
  if (src === dst) throw new ValidationError("invalid query: dst: must be another port than src");
  const packet = packetOf(src, dst, q);
  const acl = aclIndex(cluster.nb.cache);
  const trace = (from: Row, to: Row, ips: [string, string], l4: [number, number], ct: string) => {
    const started = performance.now();
    const query: Record<string, QueryValue> = {
      inport: text(from.name),
      ip_src: ips[0],
      ip_dst: ips[1],
      protocol: packet.protocol,
      ct: ctStates(ct),
      ...(packet.ported ? { src_port: l4[0], dst_port: l4[1] } : {}),
    };
    const { request, result } = runTrace(cluster, query);
    const traced = traceView(result, request.microflow, acl);
    const record = o.traces.record({
      cluster: cluster.name,
      view: traced,
      durationMs: performance.now() - started,
      atMs: o.now(),
    });
    return { view: traced, id: record.id, target: text(to.name) };
  };
  const [s, d] = packet.ips;
  const forward = trace(src, dst, [s, d], packet.l4, "new");
  const back = trace(dst, src, [d, s], [packet.l4[1], packet.l4[0]], "est,rpl");
  const live = liveInterfaces(cluster);
  const srcDiag = portDiagnosis(ix, inventory, src._uuid, live);
  const dstDiag = portDiagnosis(ix, inventory, dst._uuid, live);
  if (srcDiag === undefined || dstDiag === undefined) throw new Error("diagnosis of a known port");
  const blockers = [
    ...endpointBlockers(srcDiag, "source"),
    ...endpointBlockers(dstDiag, "destination"),
    ...pathBlockers(forward.view, forward.target, "forward"),
    ...pathBlockers(back.view, back.target, "return"),
  ];
  return {
    reachable: blockers.length === 0,
    source: endpointOf(srcDiag, s),
    destination: endpointOf(dstDiag, d),
    packet: {
      protocol: packet.protocol,
      family: packet.family,
      src_port: packet.ported ? packet.l4[0] : null,
      dst_port: packet.ported ? packet.l4[1] : null,
    },
    blockers,
    forward: pathResult(forward.view, forward.target, forward.id),
    return: pathResult(back.view, back.target, back.id),
  };
}

/** `/debug/nexthop-mac`. */
function nexthop({ ix }: ViewContext, url: string) {
  const q = readQuery(url, nexthopParams);
  const name = str(q.router) ?? "";
  const lr = ix.lr.get(name) ?? [...ix.lr.values()].find((r) => r.name === name);
  if (lr === undefined) throw new NotFoundError(`unknown logical router ${JSON.stringify(name)}`);
  const ip = str(q.ip) ?? "";
  if (parseIp(ip) === undefined)
    throw new ValidationError("invalid query: ip: must be an IPv4 or IPv6 address");
  const port = str(q.port);
  if (port !== undefined && ix.routerOfPort.get(ix.lrpByName.get(port)?._uuid ?? "") !== lr)
    throw new NotFoundError(`port: ${JSON.stringify(port)} is no port of ${str(q.router)}`);
  return nexthopMac(ix, lr, ip, port);
}

const connectivityDoc = {
  summary: "Can one port reach another, and the reply come back? Where and why not",
  description:
    "The forward packet is traced as a new connection (conntrack `new` at every ct_next) and the reply as part of it (`est,rpl`), with the ports' own addresses. Each direction says whether it reaches the other port; `blockers` says what stops it: `acl_drop` (naming the ACL), `no_route`, `port_security`, `dropped`, `not_delivered`, and for either end `no_binding`, `unbound_port`, `chassis_down`, `port_down`, `port_disabled` (a logical walk delivers to a port no chassis hosts). Both traces are kept: `/debug/traces/{trace_id}` has every stage.",
  parameters: openapiParameters(connectivityParams),
  responses: responses(connectivitySchema, errors),
};

const nexthopDoc = {
  summary: "The route and the next-hop MAC a router uses for an address",
  description:
    "The route (connected networks and static routes of the main table, longest prefix, connected first on a tie; router policies are not applied), the next hop and output port, then the MAC: declared addresses on the port's segment, Static_MAC_Binding, learned MAC_Binding, a peer router port, in that order. `candidates` lists every source that knows the next hop; `conflict` is true when they disagree. Unresolved (no MAC known) means the router would ARP or solicit and hold the packet.",
  parameters: openapiParameters(nexthopParams),
  responses: responses(nexthopMacSchema, errors),
};

export function pathRoutes(o: PathRoutesOptions) {
  const app = new Elysia({ name: "netview-paths" });
  const ctx = (c: BrowseContext) => {
    const cluster = clusterOf(o.clusters, c);
    return viewContext(cluster, o.clockOf(cluster));
  };
  for (const prefix of browsePrefixes) {
    const tags = ["debug", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    app
      .get(
        `${prefix}/debug/connectivity`,
        (c: BrowseContext & { request: Request }) => connectivity(ctx(c), c.request.url, o),
        { detail: { tags, ...connectivityDoc } },
      )
      .get(
        `${prefix}/debug/nexthop-mac`,
        (c: BrowseContext & { request: Request }) => nexthop(ctx(c), c.request.url),
        { detail: { tags, ...nexthopDoc } },
      );
  }
  return app;
}
