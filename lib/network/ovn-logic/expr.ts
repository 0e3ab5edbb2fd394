/**
 * OVN match expressions (ovn/lib/expr.c): parsing with the symbol table, address sets and port
 * groups; annotation (subfields resolved to their fields, predicates expanded, prerequisites of every
 * field ANDed in, as `expr_annotate` does); simplification of constants; and evaluation against a
 * microflow (`expr_evaluate`). Pure: the caller passes sets, groups and the port lookup.
 */

import { compare } from "../../foundation/collections/compare.ts";
import type { MfField } from "./flow.ts";
import { type Flow, getSubfield } from "./flow.ts";
import { type IntFormat, Lexer, OvnSyntaxError, type Punct } from "./lexer.ts";
import { type OvnSymbol, resolveSymbol, type SymbolTable } from "./symbols.ts";

export type Relop = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** A constant of an expression: an integer (with its written format and optional mask) or a string. */
export type Constant =
  | { kind: "int"; value: bigint; mask: bigint | undefined; format: IntFormat }
  | { kind: "string"; s: string };

export interface ConstantSet {
  kind: "int" | "string";
  values: Constant[];
  inCurlies: boolean;
}

/** A parsed, not yet annotated expression: comparisons name the symbol as written. */
export type Expr =
  | { t: "cmp"; symbol: OvnSymbol; relop: Relop; value: bigint; mask: bigint }
  | { t: "scmp"; symbol: OvnSymbol; relop: Relop; s: string }
  | { t: "and" | "or"; subs: Expr[] }
  | { t: "bool"; b: boolean }
  | { t: "cond"; port: string; not: boolean };

/** An annotated expression: comparisons on OpenFlow fields, values and masks relative to bit 0. */
export type AExpr =
  | { t: "cmp"; field: MfField; relop: Relop; value: bigint; mask: bigint }
  | { t: "scmp"; field: MfField; relop: Relop; s: string }
  | { t: "and" | "or"; subs: AExpr[] }
  | { t: "bool"; b: boolean }
  | { t: "cond"; port: string; not: boolean };

/** What parsing needs besides the text: `$name` sets, `@name` groups, and the datapath key for groups. */
export interface ParseContext {
  symtab: SymbolTable;
  addressSets?: ReadonlyMap<string, readonly string[]>;
  portGroups?: ReadonlyMap<string, readonly string[]>;
  /** Tunnel key of the datapath: SB port groups are named `<key>_<name>`. */
  dpKey?: number;
}

const ones = (n: number) => (n <= 0 ? 0n : (1n << BigInt(n)) - 1n);

function invert(relop: Relop): Relop {
  return ({ "==": "!=", "!=": "==", "<": ">=", ">=": "<", "<=": ">", ">": "<=" } as const)[relop];
}

function turn(relop: Relop): Relop {
  return ({ "==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<=" } as const)[relop];
}

export function combine<E extends Expr | AExpr>(
  type: "and" | "or",
  a: E | undefined,
  b: E | undefined,
): E | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const subs: E[] = [];
  for (const e of [a, b]) {
    if (e.t === type) subs.push(...(e.subs as E[]));
    else subs.push(e);
  }
  return { t: type, subs } as unknown as E;
}

/** expr_not: pushes a negation down to the comparisons. */
export function negate<E extends Expr | AExpr>(e: E): E {
  switch (e.t) {
    case "cmp":
    case "scmp":
      return { ...e, relop: invert(e.relop) };
    case "and":
    case "or":
      return { t: e.t === "and" ? "or" : "and", subs: e.subs.map((s) => negate(s)) } as E;
    case "bool":
      return { t: "bool", b: !e.b } as E;
    case "cond":
      return { ...e, not: !e.not };
  }
}

const relops: Partial<Record<Punct, Relop>> = {
  "==": "==",
  "!=": "!=",
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
};

function relopOf(lexer: Lexer): Relop | undefined {
  return lexer.token.type === "punct" ? relops[lexer.token.p] : undefined;
}

interface Field {
  symbol: OvnSymbol;
  ofs: number;
  nBits: number;
}

export function parseField(lexer: Lexer, symtab: SymbolTable): Field {
  const token = lexer.token;
  const symbol = token.type === "id" ? symtab.get(token.s) : undefined;
  if (symbol === undefined) lexer.syntaxError("expecting field name");
  lexer.get();
  if (!lexer.match("[")) return { symbol, ofs: 0, nBits: symbol.width };
  if (symbol.width === 0) throw new OvnSyntaxError(`Cannot select subfield of string field ${symbol.name}.`);
  const low = lexer.forceInt();
  const high = lexer.match("..") ? lexer.forceInt() : low;
  lexer.force("]");
  if (low > high) throw new OvnSyntaxError(`Invalid bit range ${low} to ${high}.`);
  if (high >= symbol.width)
    throw new OvnSyntaxError(
      `Cannot select bits ${low} to ${high} of ${symbol.width}-bit field ${symbol.name}.`,
    );
  if (symbol.level === "nominal" && (low !== 0 || high !== symbol.width - 1))
    throw new OvnSyntaxError(`Cannot select subfield of nominal field ${symbol.name}.`);
  return { symbol, ofs: low, nBits: high - low + 1 };
}

/** The written width of an integer constant (expr_constant_width). */
function constantWidth(c: Constant & { kind: "int" }): number {
  if (c.mask !== undefined) return c.mask.toString(2).length - (c.mask === 0n ? 1 : 0);
  switch (c.format) {
    case "decimal":
    case "hex":
      return c.value === 0n ? 0 : c.value.toString(2).length;
    case "ipv4":
      return 32;
    case "ipv6":
      return 128;
    case "ethernet":
      return 48;
  }
}

class ExprParser {
  not = false;
  depth = 0;

  constructor(
    readonly lexer: Lexer,
    readonly ctx: ParseContext,
  ) {}

  parse(): Expr {
    let e = this.parseNot();
    const token = this.lexer.token;
    if (token.type === "punct" && (token.p === "&&" || token.p === "||")) {
      const op = token.p;
      const type = op === "&&" ? "and" : "or";
      this.lexer.get();
      do {
        e = combine(type, e, this.parseNot()) as Expr;
      } while (this.lexer.match(op));
      if (this.lexer.isPunct("&&") || this.lexer.isPunct("||"))
        throw new OvnSyntaxError("&& and || must be parenthesized when used together.");
    }
    return e;
  }

  private parseNot(): Expr {
    if (!this.lexer.match("!")) return this.parsePrimary().e;
    this.not = !this.not;
    const { e, atomic } = this.parsePrimary();
    this.not = !this.not;
    if (!atomic) throw new OvnSyntaxError("Missing parentheses around operand of !.");
    return negate(e);
  }

  private parsePrimary(): { e: Expr; atomic: boolean } {
    const lexer: Lexer = this.lexer;
    if (lexer.match("(")) {
      if (this.depth >= 100) throw new OvnSyntaxError("Parentheses nested too deeply.");
      this.depth++;
      const e = this.parse();
      this.depth--;
      lexer.force(")");
      return { e, atomic: true };
    }
    const token = lexer.token;
    if (token.type === "template") throw new OvnSyntaxError("Unexpanded template.");
    if (token.type === "id") {
      const ahead = lexer.lookahead();
      if (ahead.type === "punct" && ahead.p === "(") {
        if (!lexer.matchId("is_chassis_resident")) throw new OvnSyntaxError("parsing function name");
        lexer.get();
        const port = lexer.token;
        if (port.type !== "string") lexer.syntaxError("expecting string");
        lexer.get();
        lexer.force(")");
        return { e: { t: "cond", port: port.s, not: false }, atomic: true };
      }
      const f = parseField(lexer, this.ctx.symtab);
      const r = relopOf(lexer);
      if (r === undefined) {
        if (f.nBits === 0 || lexer.isPunct("=")) lexer.syntaxError("expecting relational operator");
        if (f.nBits > 1 && !this.not)
          throw new OvnSyntaxError(
            "Explicit `!= 0' is required for inequality test of multibit field against 0.",
          );
        const zero: ConstantSet = {
          kind: "int",
          values: [{ kind: "int", value: 0n, mask: undefined, format: "hex" }],
          inCurlies: false,
        };
        return { e: this.makeCmp(f, "!=", zero), atomic: true };
      }
      lexer.get();
      return { e: this.makeCmp(f, r, this.parseConstantSet()), atomic: false };
    }
    const c1 = this.parseConstantSet();
    const v = c1.values[0];
    if (
      relopOf(lexer) === undefined &&
      c1.values.length === 1 &&
      v?.kind === "int" &&
      v.format === "decimal" &&
      v.mask === undefined &&
      !c1.inCurlies &&
      v.value <= 1n
    ) {
      return { e: { t: "bool", b: v.value === 1n }, atomic: true };
    }
    const r1 = relopOf(lexer);
    if (r1 === undefined) lexer.syntaxError("expecting relational operator");
    lexer.get();
    const f = parseField(lexer, this.ctx.symtab);
    const r2 = relopOf(lexer);
    if (r2 === undefined) return { e: this.makeCmp(f, turn(r1), c1), atomic: false };
    lexer.get();
    const c2 = this.parseConstantSet();
    const low = r1 === "<" || r1 === "<=";
    const high = r1 === ">" || r1 === ">=";
    if (!((low && (r2 === "<" || r2 === "<=")) || (high && (r2 === ">" || r2 === ">="))))
      throw new OvnSyntaxError(
        "Range expressions must have the form `x < field < y' or `x > field > y', with each `<' optionally replaced by `<=' or `>' by `>=').",
      );
    return {
      e: combine("and", this.makeCmp(f, turn(r1), c1), this.makeCmp(f, r2, c2)) as Expr,
      atomic: false,
    };
  }

  private assignType(cs: ConstantSet, kind: "int" | "string"): void {
    if (cs.values.length === 0 || cs.kind === kind) cs.kind = kind;
    else this.lexer.syntaxError(`expecting ${cs.kind === "int" ? "integer" : "string"}`);
  }

  private parseConstant(cs: ConstantSet): void {
    const lexer: Lexer = this.lexer;
    const token = lexer.token;
    switch (token.type) {
      case "template":
        throw new OvnSyntaxError("Unexpanded template.");
      case "string":
        this.assignType(cs, "string");
        cs.values.push({ kind: "string", s: token.s });
        break;
      case "int":
        this.assignType(cs, "int");
        cs.values.push({ kind: "int", value: token.value, mask: token.mask, format: token.format });
        break;
      case "macro": {
        const set = this.ctx.addressSets?.get(token.s);
        if (set === undefined) lexer.syntaxError("expecting address set name");
        this.assignType(cs, "int");
        cs.values.push(...addressSetConstants(set));
        break;
      }
      case "port_group": {
        const groups = this.ctx.portGroups;
        const group = groups?.get(`${this.ctx.dpKey ?? 0}_${token.s}`) ?? groups?.get(token.s);
        if (group === undefined) lexer.syntaxError("expecting port group name");
        this.assignType(cs, "string");
        for (const s of group) cs.values.push({ kind: "string", s });
        break;
      }
      default:
        lexer.syntaxError("expecting constant");
    }
    lexer.get();
  }

  parseConstantSet(): ConstantSet {
    const cs: ConstantSet = { kind: "int", values: [], inCurlies: false };
    if (this.lexer.match("{")) {
      cs.inCurlies = true;
      do {
        this.parseConstant(cs);
        this.lexer.match(",");
      } while (!this.lexer.match("}"));
    } else this.parseConstant(cs);
    return cs;
  }

  private makeCmp(f: Field, r: Relop, cs: ConstantSet): Expr {
    const { symbol } = f;
    if (cs.values.length > 0 && cs.kind !== (symbol.width ? "int" : "string"))
      throw new OvnSyntaxError(
        `${symbol.width ? "Integer" : "String"} field ${symbol.name} is not compatible with ${cs.kind === "int" ? "integer" : "string"} constant.`,
      );
    if (symbol.width) {
      for (const c of cs.values) {
        const w = constantWidth(c as Constant & { kind: "int" });
        if (w > symbol.width)
          throw new OvnSyntaxError(
            `${w}-bit constant is not compatible with ${symbol.width}-bit field ${symbol.name}.`,
          );
      }
    }
    if (r !== "==" && r !== "!=") {
      if (cs.inCurlies) throw new OvnSyntaxError("Only == and != operators may be used with value sets.");
      if (symbol.level !== "ordinal")
        throw new OvnSyntaxError(
          `Only == and != operators may be used with ${symbol.level} field ${symbol.name}.`,
        );
      const first = cs.values[0];
      if (first === undefined)
        throw new OvnSyntaxError(
          "Only == and != operators may be used to compare a field against an empty value set.",
        );
      if (first.kind === "int" && first.mask !== undefined)
        throw new OvnSyntaxError("Only == and != operators may be used with masked constants.");
    }
    if (symbol.level === "nominal") {
      if (symbol.kind === "predicate") {
        for (const c of cs.values) {
          const positive = ((c.kind === "int" && (c.value & 1n) === 1n) !== (r === "!=")) !== this.not;
          if (!positive)
            throw new OvnSyntaxError(
              `Nominal predicate ${symbol.name} may only be tested positively, e.g. \`${symbol.name}' or \`${symbol.name} == 1' but not \`!${symbol.name}' or \`${symbol.name} == 0'.`,
            );
        }
      } else if (r !== (this.not ? "!=" : "==")) {
        throw new OvnSyntaxError(
          `Nominal field ${symbol.name} may only be tested for equality (taking enclosing \`!' operators into account).`,
        );
      }
    }
    if (cs.values.length === 0) return { t: "bool", b: r === "!=" };
    let e: Expr | undefined;
    for (const c of cs.values) {
      const one: Expr =
        c.kind === "string"
          ? { t: "scmp", symbol, relop: r, s: c.s }
          : {
              t: "cmp",
              symbol,
              relop: r,
              value: (c.value & ones(f.nBits)) << BigInt(f.ofs),
              mask: ((c.mask ?? ones(f.nBits)) & ones(f.nBits)) << BigInt(f.ofs),
            };
      e = combine(r === "==" ? "or" : "and", e, one);
    }
    return e as Expr;
  }
}

/** The integer constants of an address set; entries that are not one integer token are skipped (as OVN). */
function addressSetConstants(addresses: readonly string[]): Constant[] {
  const out: Constant[] = [];
  for (const text of addresses) {
    try {
      const lexer = new Lexer(text);
      const t = lexer.token;
      if (t.type === "int") out.push({ kind: "int", value: t.value, mask: t.mask, format: t.format });
    } catch {
      // An unparsable entry is skipped, as expr_constant_set_create_integers does.
    }
  }
  return out;
}

export function parseExpr(text: string, ctx: ParseContext): Expr {
  const lexer = new Lexer(text);
  const e = new ExprParser(lexer, ctx).parse();
  lexer.forceEnd();
  return e;
}

/** A constant set alone (`{1, 2}`, `"p1"`, `10.0.0.0/8`), as the actions' option values are written. */
export function parseConstantSet(lexer: Lexer, ctx: ParseContext): ConstantSet {
  return new ExprParser(lexer, ctx).parseConstantSet();
}

const annotationMemo = new WeakMap<SymbolTable, Map<string, AExpr>>();

/** Parses and annotates a prerequisite or predicate expansion (symbols only), memoised per table. */
function annotatedText(text: string, symtab: SymbolTable, nesting: Set<string>): AExpr {
  let memo = annotationMemo.get(symtab);
  if (memo === undefined) {
    memo = new Map();
    annotationMemo.set(symtab, memo);
  }
  const hit = memo.get(text);
  if (hit !== undefined) return hit;
  const e = annotateIn(parseExpr(text, { symtab }), symtab, nesting);
  memo.set(text, e);
  return e;
}

function annotateIn(e: Expr, symtab: SymbolTable, nesting: Set<string>): AExpr {
  switch (e.t) {
    case "bool":
    case "cond":
      return e;
    case "and":
    case "or":
      return { t: e.t, subs: e.subs.map((s) => annotateIn(s, symtab, nesting)) };
    case "cmp":
    case "scmp": {
      const symbol = e.symbol;
      if (nesting.has(symbol.name))
        throw new OvnSyntaxError(`Recursive expansion of symbol \`${symbol.name}'.`);
      nesting.add(symbol.name);
      try {
        const prereqs =
          symbol.prereqs === undefined ? undefined : annotatedText(symbol.prereqs, symtab, nesting);
        let out: AExpr;
        if (symbol.kind === "predicate") {
          const predicate = annotatedText(symbol.expansion, symtab, nesting);
          const positive = e.t === "cmp" && ((e.value & 1n) === 1n) !== (e.relop === "!=");
          out = positive ? predicate : negate(predicate);
        } else {
          const resolved = resolveSymbol(symbol);
          if (resolved === undefined) throw new OvnSyntaxError(`${symbol.name} cannot be matched`);
          out =
            e.t === "scmp"
              ? { t: "scmp", field: resolved.field, relop: e.relop, s: e.s }
              : {
                  t: "cmp",
                  field: resolved.field,
                  relop: e.relop,
                  value: e.value << BigInt(resolved.ofs),
                  mask: e.mask << BigInt(resolved.ofs),
                };
        }
        return prereqs === undefined ? out : (combine("and", out, prereqs) as AExpr);
      } finally {
        nesting.delete(symbol.name);
      }
    }
  }
}

/** expr_annotate: subfields resolved, predicates expanded, prerequisites ANDed in. */
export function annotate(e: Expr, symtab: SymbolTable): AExpr {
  return annotateIn(e, symtab, new Set());
}

/** The prerequisites of a field referenced by an action (expr_field_parse), annotated. */
export function fieldPrereqs(symbol: OvnSymbol, symtab: SymbolTable): AExpr | undefined {
  let out: AExpr | undefined;
  for (
    let s: OvnSymbol | undefined = symbol;
    s !== undefined;
    s = s.kind === "subfield" ? s.parent : undefined
  ) {
    if (s.prereqs !== undefined) out = combine("and", out, annotatedText(s.prereqs, symtab, new Set()));
  }
  return out;
}

export function annotatedPrereq(text: string, symtab: SymbolTable): AExpr {
  return annotatedText(text, symtab, new Set());
}

/**
 * Folds what `expr_simplify` and `expr_evaluate_condition` turn into constants: comparisons with an
 * empty mask, relational tests that hold for every value, and `is_chassis_resident` by `resident`.
 */
export function simplify(e: AExpr, resident: (port: string) => boolean): AExpr {
  switch (e.t) {
    case "bool":
    case "scmp":
      return e;
    case "cond":
      return { t: "bool", b: resident(e.port) !== e.not };
    case "cmp": {
      if (e.mask === 0n) {
        if (e.relop === "==") return { t: "bool", b: true };
        if (e.relop === "!=") return { t: "bool", b: false };
      }
      if (e.relop === "<=" || e.relop === ">=") {
        const lt = e.relop === "<=";
        // `x >= 0` and `x <= max` over the masked range are always true.
        if (lt ? (e.value & e.mask) === e.mask : (e.value & e.mask) === 0n) return { t: "bool", b: true };
      }
      return e;
    }
    case "and":
    case "or": {
      const shortCircuit = e.t === "or";
      const subs: AExpr[] = [];
      for (const s of e.subs) {
        const x = simplify(s, resident);
        if (x.t === "bool") {
          if (x.b === shortCircuit) return x;
          continue;
        }
        subs.push(x);
      }
      if (subs.length === 0) return { t: "bool", b: !shortCircuit };
      if (subs.length === 1) return subs[0] as AExpr;
      return { t: e.t, subs };
    }
  }
}

/** Port name to logical port key in the current datapath, undefined when the name is not usable there. */
export type PortLookup = (name: string) => number | undefined;

function testRelop(relop: Relop, cmp: number): boolean {
  switch (relop) {
    case "==":
      return cmp === 0;
    case "!=":
      return cmp !== 0;
    case "<":
      return cmp < 0;
    case "<=":
      return cmp <= 0;
    case ">":
      return cmp > 0;
    case ">=":
      return cmp >= 0;
  }
}

/**
 * expr_evaluate: is the expression true for this microflow? `resident` answers is_chassis_resident
 * (true for every port by default, as expr_evaluate assumes).
 */
export function evaluate(
  e: AExpr,
  flow: Flow,
  lookupPort: PortLookup,
  resident: (port: string) => boolean = () => true,
): boolean {
  switch (e.t) {
    case "bool":
      return e.b;
    case "cond":
      return resident(e.port) !== e.not;
    case "and":
      for (const s of e.subs) if (!evaluate(s, flow, lookupPort, resident)) return false;
      return true;
    case "or":
      for (const s of e.subs) if (evaluate(s, flow, lookupPort, resident)) return true;
      return false;
    case "cmp": {
      const v = e.field.get(flow) & e.mask;
      if (e.relop === "==") return v === e.value;
      if (e.relop === "!=") return v !== e.value;
      // Relational tests compare within the contiguous run of mask bits.
      const shift = BigInt(lowestSetBit(e.mask));
      const a = v >> shift;
      const b = (e.value & e.mask) >> shift;
      return testRelop(e.relop, compare(a, b));
    }
    case "scmp": {
      const key = lookupPort(e.s);
      if (key === undefined) return false;
      const v = getSubfield(flow, e.field, 0, e.field.nBits);
      const k = BigInt(key);
      return testRelop(e.relop, compare(v, k));
    }
  }
}

function lowestSetBit(mask: bigint): number {
  if (mask === 0n) return 0;
  let n = 0;
  while (((mask >> BigInt(n)) & 1n) === 0n) n++;
  return n;
}
