/**
 * The actions that look something up and leave the answer in the packet, executed as ovn-trace
 * executes them (utilities/ovn-trace.c): MAC bindings (`get_arp`, `lookup_nd`, ...), the FDB, DHCP and
 * RA options (assumed to apply), load-balancer hairpin checks, port security and `ct_snat_to_vip`.
 * Each prints what it found as a comment node, as ovn-trace does.
 */
import type { Action, FieldRef } from "./action.ts";
import { formatConstantSet, formatField } from "./action-format.ts";
import { formatMac } from "./addresses.ts";
import { type ActionStep, isRegister, readField, resolve, writeField } from "./field-actions.ts";
import { ETH_TYPE_IP, ETH_TYPE_IPV6, type Flow, REG_INPORT, REG_OUTPORT } from "./flow.ts";
import { type LbVip, type LogicalNetwork, macBindingKey, mappedIpv4 } from "./logical-network.ts";
import { inPortSecurityAllows, outPortSecurityAllows } from "./port-security.ts";
import { CS_DST_NAT } from "./symbols.ts";
import { appendNode, type TraceNode } from "./trace-tree.ts";

export type Lookup = Extract<
  Action,
  {
    type:
      | "get_mac_bind"
      | "lookup_mac_bind"
      | "lookup_mac_bind_ip"
      | "put_opts"
      | "result"
      | "get_fdb"
      | "lookup_fdb"
      | "simple";
  }
>;

/** The MAC bound to the port and IP the action names, in the datapath's MAC_Binding rows. */
function boundMac(a: { port: FieldRef; ip: FieldRef }, step: ActionStep): bigint | undefined {
  const portKey = Number(readField(step.flow, resolve(a.port)));
  const ipR = resolve(a.ip);
  const raw = readField(step.flow, ipR);
  const ip = ipR.nBits === 32 ? mappedIpv4(raw) : raw;
  return step.dp.macBindings.get(macBindingKey(portKey, ip));
}

function getMacBind(a: Action & { type: "get_mac_bind" }, step: ActionStep): void {
  const { flow, out } = step;
  const mac = boundMac(a, step);
  flow.f.dl_dst = mac ?? 0n;
  appendNode(
    out,
    "action",
    mac !== undefined ? `/* MAC binding to ${formatMac(mac)}. */` : "/* No MAC binding. */",
  );
  appendNode(out, "modify", `eth.dst = ${formatMac(flow.f.dl_dst)}`);
}

function lookupMacBind(
  a: Action & { type: "lookup_mac_bind" | "lookup_mac_bind_ip" },
  step: ActionStep,
): void {
  const { flow, out } = step;
  const bound = boundMac(a, step);
  let found: boolean;
  if (a.type === "lookup_mac_bind") {
    found = bound !== undefined && bound === readField(flow, resolve(a.mac));
    appendNode(
      out,
      "action",
      found
        ? `/* MAC binding to ${formatMac(flow.f.dl_dst)} found. */`
        : "/* lookup failed - No MAC binding. */",
    );
  } else {
    found = bound !== undefined;
    appendNode(out, "action", found ? "/* MAC binding found. */" : "/* lookup failed - No MAC binding. */");
  }
  writeField(a.dst, flow, found ? 1n : 0n);
}

function putOpts(a: Action & { type: "put_opts" }, flow: Flow, out: TraceNode[]): void {
  if (a.name !== "put_nd_ra_opts")
    appendNode(out, "error", "/* We assume that this packet is DHCPDISCOVER or DHCPREQUEST. */");
  appendNode(
    out,
    "modify",
    `${a.name}(${a.options.map((o) => `${o.name} = ${formatConstantSet(o.value)}`).join(", ")})`,
  );
  if (!isRegister(resolve(a.dst).field)) appendNode(out, "modify", `${formatField(a.dst)} = 1`);
  writeField(a.dst, flow, 1n);
}

function lookupFdb(a: Action & { type: "lookup_fdb" }, step: ActionStep): void {
  const { flow, out } = step;
  const portKey = Number(readField(flow, resolve(a.port)));
  const entry = step.dp.fdb.get(readField(flow, resolve(a.mac)));
  const found = entry !== undefined && entry === portKey;
  appendNode(
    out,
    "action",
    found
      ? `/* MAC lookup for ${formatMac(flow.f.dl_dst)} found in FDB. */`
      : "/* lookup mac failed in mac learning table. */",
  );
  writeField(a.dst, flow, found ? 1n : 0n);
}

/** The load balancer VIP the connection was sent to (its conntrack destination). */
function lbVip(net: LogicalNetwork, flow: Flow): LbVip | undefined {
  for (const vip of net.lbVips) {
    if (
      (vip.family === 4 && vip.ip === flow.f.ct_nw_dst) ||
      (vip.family === 6 && vip.ip === flow.f.ct_ipv6_dst)
    )
      return vip;
  }
  return undefined;
}

function checkLbHairpin(name: string, dst: FieldRef, step: ActionStep): void {
  const { flow } = step;
  let res = 0n;
  const vip = lbVip(step.net, flow);
  const family = flow.f.dl_type === ETH_TYPE_IP ? 4 : flow.f.dl_type === ETH_TYPE_IPV6 ? 6 : undefined;
  if (vip !== undefined && family !== undefined) {
    if (flow.f.ct_state & CS_DST_NAT) {
      const hairpin = family === 4 ? flow.f.nw_src === flow.f.nw_dst : flow.f.ipv6_src === flow.f.ipv6_dst;
      res = hairpin ? 1n : 0n;
    }
    const port = name === "chk_lb_hairpin" ? flow.f.ct_tp_dst : flow.f.tp_dst;
    res &= BigInt(vip.port) === port ? 1n : 0n;
  }
  writeField(dst, flow, res);
  appendNode(step.out, "modify", `${formatField(dst)} = ${res}`);
}

function checkPortSecurity(ingress: boolean, dst: FieldRef, step: ActionStep): void {
  const { flow } = step;
  const key = Number(flow.regs[ingress ? REG_INPORT : REG_OUTPORT]);
  const port = step.dp.ports.find((p) => p.tunnelKey === key);
  if (port === undefined || port.portSecurity.length === 0) {
    writeField(dst, flow, 0n);
    return;
  }
  const allow = ingress
    ? inPortSecurityAllows(port.portSecurity, flow)
    : outPortSecurityAllows(port.portSecurity, flow);
  writeField(dst, flow, allow ? 0n : 1n);
}

function result(a: Action & { type: "result" }, step: ActionStep): void {
  switch (a.name) {
    case "dns_lookup":
      writeField(a.dst, step.flow, 0n);
      appendNode(step.out, "error", "*** dns_lookup action not implemented");
      return;
    case "chk_lb_hairpin":
    case "chk_lb_hairpin_reply":
      checkLbHairpin(a.name, a.dst, step);
      return;
    case "check_in_port_sec":
    case "check_out_port_sec":
      checkPortSecurity(a.name === "check_in_port_sec", a.dst, step);
      return;
    default:
      // chk_ecmp_nh, chk_ecmp_nh_mac, chk_lb_aff: ovn-trace leaves the result as it was.
      return;
  }
}

function ctSnatToVip(step: ActionStep): void {
  const { flow } = step;
  const vip = lbVip(step.net, flow);
  if (vip === undefined) return;
  if (vip.family === 4 ? vip.ip !== flow.f.ct_nw_dst : vip.ip !== flow.f.ct_ipv6_dst) return;
  if (BigInt(vip.port) !== flow.f.ct_tp_dst) return;
  appendNode(step.out, "action", `/* nat(src=${vip.text}) */`);
}

/** Executes one lookup on `step.flow`, reporting what it found into `step.out`. */
export function lookUp(a: Lookup, step: ActionStep): void {
  switch (a.type) {
    case "get_mac_bind":
      getMacBind(a, step);
      return;
    case "lookup_mac_bind":
    case "lookup_mac_bind_ip":
      lookupMacBind(a, step);
      return;
    case "put_opts":
      putOpts(a, step.flow, step.out);
      return;
    case "result":
      result(a, step);
      return;
    case "get_fdb": {
      const port = step.dp.fdb.get(readField(step.flow, resolve(a.mac))) ?? 0;
      writeField(a.dst, step.flow, BigInt(port));
      return;
    }
    case "lookup_fdb":
      lookupFdb(a, step);
      return;
    case "simple":
      if (a.name === "ct_snat_to_vip") ctSnatToVip(step);
      return;
  }
}
