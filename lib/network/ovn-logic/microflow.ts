/**
 * A microflow from its description in the expression language (expr_parse_microflow): every field
 * the expression pins down is set, prerequisites included (`tcp.dst == 80` with `ip4` sets eth.type
 * and ip.proto too), and anything left open is an error, as in ovn-trace: "ambiguous" when a choice
 * remains (`ip` without `ip4` or `ip6`), "contradictory" when no packet fits.
 */
import {
  type AExpr,
  annotate,
  type Expr,
  type ParseContext,
  type PortLookup,
  parseExpr,
  simplify,
} from "./expr.ts";
import { emptyFlow, type Flow, type MfField } from "./flow.ts";
import { OvnSyntaxError } from "./lexer.ts";

interface Known {
  field: MfField;
  value: bigint;
  mask: bigint;
}

/** The logical inport a microflow names (expr_find_inport), to find its datapath. */
export function findInport(e: Expr): string {
  const names = new Set<string>();
  const walk = (x: Expr) => {
    if (x.t === "scmp" && x.symbol.name === "inport" && x.relop === "==") names.add(x.s);
    if (x.t === "and" || x.t === "or") x.subs.forEach(walk);
  };
  walk(e);
  const [first] = names;
  if (names.size === 1 && first !== undefined) return first;
  throw new OvnSyntaxError(
    names.size === 0
      ? "flow match expression does not match on inport"
      : "flow match expression matches on multiple inports",
  );
}

function flatten(e: AExpr, out: AExpr[]): void {
  if (e.t === "and") for (const s of e.subs) flatten(s, out);
  else out.push(e);
}

/** Whether the pinned bits alone make `e` true (true), false (false), or leave it open (undefined). */
function implied(e: AExpr, known: Map<MfField, Known>, lookupPort: PortLookup): boolean | undefined {
  switch (e.t) {
    case "bool":
      return e.b;
    case "cond":
      return !e.not;
    case "and": {
      let open = false;
      for (const s of e.subs) {
        const r = implied(s, known, lookupPort);
        if (r === false) return false;
        if (r === undefined) open = true;
      }
      return open ? undefined : true;
    }
    case "or": {
      let open = false;
      for (const s of e.subs) {
        const r = implied(s, known, lookupPort);
        if (r === true) return true;
        if (r === undefined) open = true;
      }
      return open ? undefined : false;
    }
    case "scmp": {
      const k = known.get(e.field);
      const key = lookupPort(e.s);
      if (k === undefined || key === undefined) return undefined;
      const equal = k.value === BigInt(key);
      return e.relop === "==" ? equal : e.relop === "!=" ? !equal : undefined;
    }
    case "cmp": {
      const k = known.get(e.field);
      if (k === undefined || (k.mask & e.mask) !== e.mask) return undefined;
      const v = k.value & e.mask;
      if (e.relop === "==") return v === e.value;
      if (e.relop === "!=") return v !== e.value;
      return undefined;
    }
  }
}

function pin(known: Map<MfField, Known>, field: MfField, value: bigint, mask: bigint): void {
  const k = known.get(field) ?? { field, value: 0n, mask: 0n };
  const overlap = k.mask & mask;
  if ((k.value & overlap) !== (value & overlap)) throw new OvnSyntaxError("Constraints are contradictory.");
  known.set(field, { field, value: (k.value & ~mask) | (value & mask), mask: k.mask | mask });
}

/** Builds the microflow; throws OvnSyntaxError when the text does not parse or does not pin a packet. */
export function parseMicroflow(text: string, ctx: ParseContext, lookupPort: PortLookup): Flow {
  const annotated = simplify(annotate(parseExpr(text, ctx), ctx.symtab), () => true);
  const terms: AExpr[] = [];
  flatten(annotated, terms);
  const known = new Map<MfField, Known>();
  const deferred: AExpr[] = [];
  for (const term of terms) {
    if (term.t === "bool") {
      if (!term.b) throw new OvnSyntaxError("Constraints are contradictory.");
    } else if (term.t === "cmp" && term.relop === "==") {
      pin(known, term.field, term.value, term.mask);
    } else if (term.t === "scmp" && term.relop === "==") {
      const key = lookupPort(term.s);
      if (key === undefined) throw new OvnSyntaxError(`${term.s}: unknown logical port`);
      pin(known, term.field, BigInt(key), (1n << BigInt(term.field.nBits)) - 1n);
    } else deferred.push(term);
  }
  for (const term of deferred) {
    const r = implied(term, known, lookupPort);
    if (r === false) throw new OvnSyntaxError("Constraints are contradictory.");
    if (r === undefined) throw new OvnSyntaxError("Constraints are ambiguous.");
  }
  const flow = emptyFlow();
  for (const k of known.values()) k.field.set(flow, k.value);
  return flow;
}
