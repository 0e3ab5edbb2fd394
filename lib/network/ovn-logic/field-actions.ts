/**
 * The actions that edit the packet's fields, executed as ovn-trace executes them
 * (utilities/ovn-trace.c): loads, moves and exchanges (each printed as the modification it makes, except
 * into registers), push and pop on the trace's stack, `ip.ttl--` and `ct_clear`. Also what the other
 * executors share: a field reference resolved to its OpenFlow field and bits, and a value written to one.
 */
import type { Action, FieldRef } from "./action.ts";
import { formatAction, formatField, formatValue } from "./action-format.ts";
import { formatHex } from "./addresses.ts";
import type { PortLookup } from "./expr.ts";
import { type Flow, getSubfield, isIpAny, type MfField, prereqsOk, setSubfield } from "./flow.ts";
import { friendlyNames, type LogicalNetwork, type TraceDatapath } from "./logical-network.ts";
import { resolveSymbol } from "./symbols.ts";
import { appendNode, TraceError, type TraceNode } from "./trace-tree.ts";

/** Where one action runs: the network, the datapath, the packet it edits, the nodes it reports into. */
export interface ActionStep {
  net: LogicalNetwork;
  dp: TraceDatapath;
  flow: Flow;
  out: TraceNode[];
  /** Logical port and multicast group names to their tunnel keys on `dp`. */
  lookupPort: PortLookup;
}

/** What push and pop share within one list of actions. */
export type ValueStack = { value: bigint; bytes: number }[];

type FieldEdit = Extract<
  Action,
  { type: "load" | "ovnfield_load" | "move" | "exchange" | "push" | "pop" | "dec_ttl" | "ct_clear" }
>;

interface Resolved {
  field: MfField;
  ofs: number;
  nBits: number;
}

/** expr_resolve_field: a string field stands for its whole register. */
export function resolve(f: FieldRef): Resolved {
  const r = resolveSymbol(f.symbol);
  if (r === undefined) throw new TraceError(`${f.symbol.name} is not a field`);
  return { field: r.field, ofs: r.ofs + f.ofs, nBits: f.symbol.width ? f.nBits : r.field.nBits };
}

export const isRegister = (field: MfField) => /^x{0,2}reg\d+$/.test(field.name);

/** The value of a resolved field reference in `flow`. */
export function readField(flow: Flow, r: Resolved): bigint {
  return getSubfield(flow, r.field, r.ofs, r.nBits);
}

export function writeField(dst: FieldRef, flow: Flow, value: bigint): void {
  const r = resolve(dst);
  setSubfield(flow, r.field, r.ofs, r.nBits, value);
}

/** A whole field's value in the style OVS prints that field in. */
function formatFieldValue(field: MfField, value: bigint): string {
  return formatValue(value, field.style === "mac" ? "ethernet" : field.style);
}

function load(a: Action & { type: "load" }, step: ActionStep): void {
  const { flow, out } = step;
  const r = resolve(a.dst);
  if (!isRegister(r.field))
    appendNode(out, "modify", friendlyNames(formatAction(a).replace(/;$/, ""), step.net));
  if (!prereqsOk(r.field.prereq, flow)) return;
  if (a.imm.kind === "string") {
    const key = step.lookupPort(a.imm.s) ?? 0;
    r.field.set(flow, BigInt(key));
    return;
  }
  const nbits = (1n << BigInt(a.dst.nBits)) - 1n;
  const value = (a.imm.value & nbits) << BigInt(r.ofs);
  const mask = ((a.imm.mask ?? nbits) & nbits) << BigInt(r.ofs);
  r.field.set(flow, (r.field.get(flow) & ~mask) | (value & mask));
}

function summarizeMove(src: Resolved, dstRef: FieldRef, dst: Resolved, flow: Flow, out: TraceNode[]): void {
  if (isRegister(dst.field)) return;
  const value =
    src.ofs === 0 && src.nBits >= src.field.nBits
      ? formatFieldValue(src.field, src.field.get(flow))
      : formatHex(readField(flow, src));
  appendNode(out, "modify", `${formatField(dstRef)} = ${value}`);
}

function move(a: Action & { type: "move" | "exchange" }, flow: Flow, out: TraceNode[]): void {
  const dst = resolve(a.lhs);
  const src = resolve(a.rhs);
  summarizeMove(src, a.lhs, dst, flow, out);
  if (a.type === "move") {
    setSubfield(flow, dst.field, dst.ofs, dst.nBits, readField(flow, src));
    return;
  }
  summarizeMove(dst, a.rhs, src, flow, out);
  const vx = readField(flow, dst);
  const vy = readField(flow, src);
  setSubfield(flow, dst.field, dst.ofs, dst.nBits, vy);
  setSubfield(flow, src.field, src.ofs, src.nBits, vx);
}

function pop(field: FieldRef, flow: Flow, out: TraceNode[], stack: ValueStack): void {
  const r = resolve(field);
  const top = stack.pop();
  if (top === undefined) appendNode(out, "modify", `pop(${formatField(field)}) <- /* empty stack */`);
  else {
    setSubfield(flow, r.field, r.ofs, r.nBits, top.value);
    appendNode(out, "modify", `pop(${formatField(field)}) <- ${formatHex(top.value)}`);
  }
}

function decTtl(flow: Flow, out: TraceNode[]): void {
  if (!isIpAny(flow)) appendNode(out, "error", "*** TTL decrement of non-IP packet");
  else if (!flow.f.nw_ttl) appendNode(out, "error", "*** TTL underflow");
  else {
    flow.f.nw_ttl--;
    appendNode(out, "modify", "ip.ttl--");
  }
}

/** Executes one field edit on `step.flow`, reporting what changed into `step.out`. */
export function editFields(a: FieldEdit, step: ActionStep, stack: ValueStack): void {
  const { flow, out } = step;
  switch (a.type) {
    case "load":
      load(a, step);
      return;
    case "ovnfield_load":
      appendNode(out, "modify", `${a.name} = ${a.value}`);
      return;
    case "move":
    case "exchange":
      move(a, flow, out);
      return;
    case "push": {
      const r = resolve(a.field);
      const value = readField(flow, r);
      appendNode(out, "modify", `push(${formatField(a.field)}) -> ${formatHex(value)}`);
      stack.push({ value, bytes: Math.ceil(r.nBits / 8) });
      return;
    }
    case "pop":
      pop(a.field, flow, out, stack);
      return;
    case "dec_ttl":
      decTtl(flow, out);
      return;
    case "ct_clear":
      flow.f.ct_state = 0n;
      flow.f.ct_mark = 0n;
      flow.f.ct_label = 0n;
      flow.f.ct_nw_dst = 0n;
      flow.f.ct_ipv6_dst = 0n;
      flow.f.ct_tp_dst = 0n;
      return;
  }
}
