/**
 * The logical packet trace, step for step as ovn-trace (utilities/ovn-trace.c) walks it: a table
 * lookup per stage (first flow by priority whose match holds; stages whose only flow is `1` with
 * `next;` are skipped), each action printed in OVN's canonical form and executed on the microflow,
 * `next` into the following table, `output` into the egress pipeline or through a patch port into
 * the peer datapath, multicast groups expanded, and the stateful actions as ovn-trace models them:
 * conntrack forks into a branch with an assumed `ct_state` (est|trk unless told otherwise),
 * `ct_lb`/`ct_lb_mark` pick the destination given (or the first), NAT rewrites the address, and the
 * controller-only actions are no-ops. The result is ovn-trace's node tree (`trace-tree.ts`),
 * printable in its three formats (`trace-format.ts`), plus the walk as data. This file walks the
 * pipelines and forks; the actions that edit fields (`field-actions.ts`), look things up
 * (`lookup-actions.ts`) or derive a nested packet (`nested-packets.ts`) are executed beside it.
 */
import type { Action, Pipeline } from "./action.ts";
import { formatAction, formatField } from "./action-format.ts";
import { formatIpv4, formatIpv6 } from "./addresses.ts";
import { evaluate, type PortLookup, parseExpr } from "./expr.ts";
import { type ActionStep, editFields, type ValueStack, writeField } from "./field-actions.ts";
import {
  cloneFlow,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
  type Flow,
  REG_FLAGS,
  REG_INPORT,
  REG_OUTPORT,
} from "./flow.ts";
import { formatCtState, formatFlow } from "./flow-format.ts";
import {
  type CompiledFlow,
  flowsOf,
  friendlyNames,
  type LogicalNetwork,
  type TraceDatapath,
  type TracePort,
} from "./logical-network.ts";
import { lookUp } from "./lookup-actions.ts";
import { findInport, parseMicroflow } from "./microflow.ts";
import { nestedPacket } from "./nested-packets.ts";
import { findDatapath, lookupPortByName } from "./network-lookup.ts";
import { CS_DST_NAT, CS_ESTABLISHED, CS_SRC_NAT, CS_TRACKED, MLF_ALLOW_LOOPBACK, symtab } from "./symbols.ts";
import type { LbDestination, TraceOptions } from "./trace-options.ts";
import { appendNode, TraceError, type TraceNode, type TraceResult } from "./trace-tree.ts";

type Fork = Extract<Action, { type: "ct_next" | "ct_commit_nat" | "ct_nat" | "ct_lb" | "select" }>;

class Tracer {
  private ctIndex = 0;
  private lbDst: LbDestination | undefined;
  private readonly flowsMemo = new Map<TraceDatapath, Map<string, CompiledFlow[]>>();

  constructor(
    readonly net: LogicalNetwork,
    readonly options: TraceOptions,
  ) {
    this.lbDst = options.lbDst;
  }

  private table(dp: TraceDatapath, pipeline: Pipeline, table: number): CompiledFlow[] {
    let byTable = this.flowsMemo.get(dp);
    if (byTable === undefined) {
      byTable = new Map();
      for (const f of flowsOf(dp, this.net)) {
        const k = `${f.pipeline}/${f.table}`;
        const list = byTable.get(k) ?? [];
        list.push(f);
        byTable.set(k, list);
      }
      this.flowsMemo.set(dp, byTable);
    }
    return byTable.get(`${pipeline}/${table}`) ?? [];
  }

  portByKey(dp: TraceDatapath, key: number): TracePort | undefined {
    return dp.ports.find((p) => p.tunnelKey === key);
  }

  private portKeyName(dp: TraceDatapath, key: number): string {
    const port = this.portByKey(dp, key);
    return port !== undefined ? port.friendlyName : key === 0 ? "" : "(unnamed)";
  }

  lookupPort(dp: TraceDatapath): PortLookup {
    return (name) => {
      if (name === "" || name === "none") return 0;
      const port = lookupPortByName(this.net, name);
      if (port !== undefined) return port.datapath === dp ? port.tunnelKey : undefined;
      return dp.mcgroups.find((g) => g.name === name)?.tunnelKey;
    };
  }

  private nextCtState(comment: { text: string }): bigint {
    const states = this.options.ct ?? [];
    const state = states[this.ctIndex];
    if (state !== undefined) {
      this.ctIndex++;
      return state;
    }
    comment.text += " /* default (use --ct to customize) */";
    return CS_ESTABLISHED | CS_TRACKED;
  }

  trace(dp: TraceDatapath, flow: Flow, table: number, pipeline: Pipeline, out: TraceNode[]): void {
    const lookup = this.lookupPort(dp);
    const resident = (name: string) => name === "" || this.net.ports.has(name);
    let f: CompiledFlow | undefined;
    let t = table;
    for (;;) {
      f = this.table(dp, pipeline, t).find((c) => evaluate(c.match, flow, lookup, resident));
      const only = f?.actions[0];
      if (f?.matchIsTrue && f.actions.length === 1 && only?.type === "next" && only.table === t + 1) {
        t++;
        continue;
      }
      break;
    }
    let text = `${String(t).padStart(2, " ")}. `;
    if (f !== undefined) {
      if (f.stageName !== undefined && f.source !== undefined) text += `${f.stageName} (${f.source}): `;
      else if (f.stageName !== undefined) text += `${f.stageName}: `;
      else if (f.source !== undefined) text += `(${f.source}): `;
      text += `${f.matchText}, priority ${f.priority}, uuid ${f.uuid.slice(0, 8)}`;
    } else {
      const stage = this.table(dp, pipeline, t)[0]?.stageName;
      text += `${stage !== undefined ? `${stage}: ` : ""}no match (implicit drop)`;
    }
    const node = appendNode(out, "table", text);
    node.stage = {
      datapath: dp.friendlyName,
      datapathUuid: dp.uuid,
      pipeline,
      table: t,
      stageName: f?.stageName ?? this.table(dp, pipeline, t)[0]?.stageName,
      flow:
        f === undefined
          ? null
          : {
              uuid: f.uuid,
              priority: f.priority,
              match: f.matchText,
              source: f.source,
              stageHint: f.stageHint,
            },
    };
    if (f !== undefined) this.actions(f.actions, dp, flow, t, pipeline, node.subs);
  }

  actions(
    actions: readonly Action[],
    dp: TraceDatapath,
    flow: Flow,
    table: number,
    pipeline: Pipeline,
    out: TraceNode[],
  ): void {
    if (actions.length === 0) {
      appendNode(out, "action", "drop;");
      return;
    }
    const step: ActionStep = { net: this.net, dp, flow, out, lookupPort: this.lookupPort(dp) };
    const stack: ValueStack = [];
    for (const a of actions) {
      appendNode(out, "action", friendlyNames(formatAction(a), this.net));
      this.execute(a, step, table, pipeline, stack);
    }
  }

  private execute(a: Action, step: ActionStep, table: number, pipeline: Pipeline, stack: ValueStack): void {
    const { dp, flow, out } = step;
    switch (a.type) {
      case "output":
        this.output(dp, flow, pipeline, out);
        return;
      case "next":
        this.next(a, dp, flow, pipeline, out);
        return;
      case "load":
      case "ovnfield_load":
      case "move":
      case "exchange":
      case "push":
      case "pop":
      case "dec_ttl":
      case "ct_clear":
        editFields(a, step, stack);
        return;
      case "get_mac_bind":
      case "lookup_mac_bind":
      case "lookup_mac_bind_ip":
      case "put_opts":
      case "result":
      case "get_fdb":
      case "lookup_fdb":
      case "simple":
        lookUp(a, step);
        return;
      case "ct_next":
      case "ct_commit_nat":
      case "ct_nat":
      case "ct_lb":
      case "select":
        this.fork(a, dp, flow, pipeline, out);
        return;
      case "nested": {
        const nested = nestedPacket(a.name, flow);
        if (nested === undefined) return;
        const node = appendNode(out, "transformation", nested.label);
        this.actions(a.actions, dp, nested.flow, table, pipeline, node.subs);
        return;
      }
      case "log":
        appendNode(
          out,
          "transformation",
          `LOG: ACL name=${a.name ?? "<unnamed>"}, direction=${pipeline === "ingress" ? "IN" : "OUT"}, verdict=${a.verdict}, severity=${a.severity}, packet="${formatFlow(flow)}"`,
        );
        return;
      default:
        // put_arp/put_nd/put_fdb, ct_commit, set_queue, set_meter, check_pkt_larger, bind_vport,
        // handle_svc_check, and the controller-only actions change nothing a logical trace follows.
        return;
    }
  }

  /** The actions that trace on from the next table in a branch of their own, with a changed packet. */
  private fork(a: Fork, dp: TraceDatapath, flow: Flow, pipeline: Pipeline, out: TraceNode[]): void {
    switch (a.type) {
      case "ct_next": {
        const comment = { text: "" };
        const state = this.nextCtState(comment);
        const node = appendNode(
          out,
          "transformation",
          `ct_next(ct_state=${formatCtState(state)}${comment.text})`,
        );
        const ct = cloneFlow(flow);
        ct.f.ct_state = state;
        this.trace(dp, ct, a.table, pipeline, node.subs);
        return;
      }
      case "ct_commit_nat": {
        const ct = cloneFlow(flow);
        const comment = { text: "ct_commit_nat /* assuming no un-nat entry, so no change */" };
        if (!(ct.f.ct_state & CS_TRACKED)) ct.f.ct_state |= this.nextCtState(comment);
        const node = appendNode(out, "transformation", comment.text);
        this.trace(dp, ct, a.table, pipeline, node.subs);
        return;
      }
      case "ct_nat":
        this.ctNat(a, dp, flow, pipeline, out);
        return;
      case "ct_lb":
        this.ctLb(a, dp, flow, pipeline, out);
        return;
      case "select": {
        const chosen = a.dsts.find((d) => d.id === this.options.selectId);
        const dst = chosen ?? a.dsts[0];
        if (dst === undefined) return;
        const sel = cloneFlow(flow);
        writeField(a.res, sel, BigInt(dst.id));
        const note = chosen !== undefined ? "" : " /* Randomly selected. Use --select-id to specify. */";
        const node = appendNode(out, "transformation", `select: ${formatField(a.res)} = ${dst.id}${note}`);
        this.trace(dp, sel, a.table, pipeline, node.subs);
        return;
      }
    }
  }

  private next(
    a: Action & { type: "next" },
    dp: TraceDatapath,
    flow: Flow,
    pipeline: Pipeline,
    out: TraceNode[],
  ): void {
    let target = out;
    if (pipeline !== a.pipeline) {
      const key = Number(a.pipeline === "ingress" ? flow.regs[REG_INPORT] : flow.regs[REG_OUTPORT]);
      const node = appendNode(
        out,
        "pipeline",
        `${a.pipeline}(dp="${dp.friendlyName}", ${a.pipeline === "ingress" ? "inport" : "outport"}="${this.portKeyName(dp, key)}")`,
      );
      target = node.subs;
    }
    this.trace(dp, flow, a.table, a.pipeline, target);
  }

  private output(dp: TraceDatapath, flow: Flow, pipeline: Pipeline, out: TraceNode[]): void {
    const key = Number(flow.regs[REG_OUTPORT]);
    if (key === 0) {
      appendNode(out, "error", "*** output to null logical port");
      return;
    }
    let port = this.portByKey(dp, key);
    const mcgroup = dp.mcgroups.find((g) => g.tunnelKey === key);
    let outName = port !== undefined ? port.friendlyName : mcgroup !== undefined ? mcgroup.name : "(unnamed)";
    if (port === undefined && mcgroup === undefined)
      appendNode(out, "error", `*** unknown port or multicast group ${key}`);
    if (pipeline === "egress") {
      const leaf = appendNode(out, "output", `/* output to "${outName}", type "${port?.type ?? ""}" */`);
      if (port?.peer !== undefined) {
        const peer = port.peer;
        const node = appendNode(
          out,
          "pipeline",
          `ingress(dp="${peer.datapath.friendlyName}", inport="${peer.friendlyName}")`,
        );
        const next = cloneFlow(flow);
        next.regs[REG_INPORT] = BigInt(peer.tunnelKey);
        next.regs[REG_OUTPORT] = 0n;
        this.trace(peer.datapath, next, 0, "ingress", node.subs);
      } else {
        const done = appendNode(out, "modify", `output("${outName}")`);
        done.delivered = { port: port?.name ?? outName, datapath: dp.friendlyName, type: port?.type ?? "" };
        void leaf;
      }
      return;
    }
    const egress = cloneFlow(flow);
    for (let i = 0; i < 16; i++) if (i !== REG_INPORT && i !== REG_OUTPORT) egress.regs[i] = 0n;
    const inKey = Number(flow.regs[REG_INPORT]);
    const inName = this.portKeyName(dp, inKey);
    const loopback = ((flow.regs[REG_FLAGS] ?? 0n) & MLF_ALLOW_LOOPBACK) !== 0n;
    if (mcgroup !== undefined) {
      const mc = appendNode(out, "pipeline", `multicast(dp="${dp.friendlyName}", mcgroup="${mcgroup.name}")`);
      for (const p of mcgroup.ports) {
        const node = appendNode(
          mc.subs,
          "pipeline",
          `egress(dp="${dp.friendlyName}", inport="${inName}", outport="${p.friendlyName}")`,
        );
        if (p.tunnelKey !== inKey || loopback) {
          node.alwaysIndent = true;
          egress.regs[REG_OUTPORT] = BigInt(p.tunnelKey);
          this.trace(dp, cloneFlow(egress), 0, "egress", node.subs);
        } else {
          appendNode(
            node.subs,
            "output",
            "/* omitting output because inport == outport && !flags.loopback */",
          );
        }
      }
      return;
    }
    if (port !== undefined && port.type === "chassisredirect") {
      if (port.distributedPort !== undefined) {
        appendNode(
          out,
          "output",
          `/* Replacing type "${port.type}" outport "${port.friendlyName}" with distributed port "${port.distributedPort.friendlyName}". */`,
        );
        port = port.distributedPort;
        outName = port.friendlyName;
        egress.regs[REG_OUTPORT] = BigInt(port.tunnelKey);
      } else {
        appendNode(
          out,
          "error",
          `*** output to type "${port.type}" port "${outName}" with no or invalid distributed port`,
        );
        return;
      }
    }
    if ((port !== undefined && port.tunnelKey !== inKey) || loopback) {
      const node = appendNode(
        out,
        "pipeline",
        `egress(dp="${dp.friendlyName}", inport="${inName}", outport="${outName}")`,
      );
      this.trace(dp, egress, 0, "egress", node.subs);
    } else {
      appendNode(out, "output", "/* omitting output because inport == outport && !flags.loopback */");
    }
  }

  private ctNat(
    a: Action & { type: "ct_nat" },
    dp: TraceDatapath,
    flow: Flow,
    pipeline: Pipeline,
    out: TraceNode[],
  ): void {
    const isDst = a.name === "ct_dnat" || a.name === "ct_dnat_in_czone";
    const inCzone = a.name.endsWith("_in_czone");
    if (!isDst && dp.hasLocalL3gateway && a.family === undefined) return;
    const direction = isDst ? "dst" : "src";
    const ct = cloneFlow(flow);
    const comment = { text: `ct_${direction[0]}nat${inCzone ? "in_czone" : ""}` };
    if (a.family !== undefined) {
      if (a.family === 4) {
        comment.text += `(ip4.${direction}=${formatIpv4(a.ip)})`;
        if (isDst) ct.f.nw_dst = a.ip;
        else ct.f.nw_src = a.ip;
      } else {
        comment.text += `(ip6.${direction}=${formatIpv6(a.ip)})`;
        if (isDst) ct.f.ipv6_dst = a.ip;
        else ct.f.ipv6_src = a.ip;
      }
      ct.f.ct_state |= isDst ? CS_DST_NAT : CS_SRC_NAT;
    } else {
      comment.text += ` /* assuming no un-${direction[0]}nat entry, so no change */`;
    }
    if (!(ct.f.ct_state & CS_TRACKED)) ct.f.ct_state |= this.nextCtState(comment);
    const node = appendNode(out, "transformation", comment.text);
    this.trace(dp, ct, a.table, pipeline, node.subs);
  }

  private ctLb(
    a: Action & { type: "ct_lb" },
    dp: TraceDatapath,
    flow: Flow,
    pipeline: Pipeline,
    out: TraceNode[],
  ): void {
    const comment = { text: "" };
    const ct = cloneFlow(flow);
    const family = ct.f.dl_type === ETH_TYPE_IP ? 4 : ct.f.dl_type === ETH_TYPE_IPV6 ? 6 : undefined;
    if (family !== undefined) {
      let dst: LbDestination | undefined;
      if (a.dsts.length > 0) {
        let first: LbDestination | undefined;
        for (const d of a.dsts) {
          if (d.family !== family) continue;
          if (this.lbDst !== undefined && this.lbDst.family === family && d.ip === this.lbDst.ip) {
            this.lbDst = undefined;
            dst = d;
            break;
          }
          first ??= d;
        }
        // ovn-trace picks at random without --lb-dst; the first backend keeps answers repeatable.
        dst ??= first;
        if (dst === undefined) appendNode(out, "error", "*** no load balancing destination (use --lb-dst)");
      } else if (this.lbDst !== undefined && this.lbDst.family === family) {
        dst = this.lbDst;
      }
      if (dst !== undefined) {
        if (family === 6) {
          ct.f.ct_ipv6_dst = ct.f.ipv6_dst;
          ct.f.ipv6_dst = dst.ip;
        } else {
          ct.f.ct_nw_dst = ct.f.nw_dst;
          ct.f.nw_dst = dst.ip;
        }
        ct.f.ct_tp_dst = ct.f.tp_dst;
        if (dst.port) ct.f.tp_dst = BigInt(dst.port);
        ct.f.ct_state |= CS_DST_NAT;
      }
      ct.f.ct_state |= this.nextCtState(comment);
    }
    const node = appendNode(out, "transformation", `${a.mark ? "ct_lb_mark" : "ct_lb"}${comment.text}`);
    this.trace(dp, ct, a.table, pipeline, node.subs);
  }
}

/**
 * Traces `microflow` (the expression language, e.g. `inport == "p1" && eth.src == ... && ip4 && ...`)
 * from its inport's datapath, or from `datapath` when given. Throws TraceError for an unknown
 * datapath or port and for a microflow that does not pin down one packet.
 */
export function tracePacket(
  net: LogicalNetwork,
  microflow: string,
  options: TraceOptions & { datapath?: string } = {},
): TraceResult {
  const tracer = new Tracer(net, options);
  let dp: TraceDatapath | undefined;
  if (options.datapath !== undefined) {
    dp = findDatapath(net, options.datapath);
    if (dp === undefined) throw new TraceError(`unknown datapath "${options.datapath}"`);
  } else {
    let inport: string;
    try {
      inport = findInport(
        parseExpr(microflow, { symtab, addressSets: net.addressSets, portGroups: net.portGroups }),
      );
    } catch (error) {
      throw new TraceError(`error parsing flow: ${(error as Error).message}`);
    }
    const port = net.ports.get(inport);
    if (port === undefined) throw new TraceError(`unknown port "${inport}"`);
    dp = port.datapath;
  }
  let flow: Flow;
  try {
    flow = parseMicroflow(
      microflow,
      { symtab, addressSets: net.addressSets, portGroups: net.portGroups, dpKey: dp.tunnelKey },
      tracer.lookupPort(dp),
    );
  } catch (error) {
    throw new TraceError(`error parsing flow: ${(error as Error).message}`);
  }
  const inKey = Number(flow.regs[REG_INPORT]);
  const inport = tracer.portByKey(dp, inKey)?.friendlyName ?? "(unnamed)";
  const root: TraceNode[] = [];
  const top = appendNode(root, "pipeline", `ingress(dp="${dp.friendlyName}", inport="${inport}")`);
  const header = formatFlow(flow);
  tracer.trace(dp, flow, 0, "ingress", top.subs);
  return { datapath: dp.friendlyName, inport, flow: header, root };
}
