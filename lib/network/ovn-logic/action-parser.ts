/**
 * OVN logical-flow actions parsed (ovn/lib/actions.c) into the plain objects of `action.ts`, with the
 * prerequisites they add to the flow's match. This file reads the list and the actions named by one
 * word; the grammars of conntrack, of actions that start with a field and of calls with arguments live
 * beside it and reach the parser through `ActionReader`.
 */
import type { Action, ActionContext, FieldRef, NestedName, ParsedActions } from "./action.ts";
import { PIPELINE_TABLES } from "./action.ts";
import type { ActionReader } from "./action-reader.ts";
import { parseSet } from "./assignment-actions.ts";
import { parseCall } from "./call-actions.ts";
import { parseCtCommit, parseCtLb, parseCtNat } from "./conntrack-actions.ts";
import { type AExpr, annotatedPrereq, combine, fieldPrereqs, parseField } from "./expr.ts";
import { Lexer, OvnSyntaxError } from "./lexer.ts";
import { type SymbolTable, WR_DEFAULT } from "./symbols.ts";

class ActionParser implements ActionReader {
  prereqs: AExpr | undefined;
  depth = 0;
  scope = WR_DEFAULT;

  constructor(
    readonly lexer: Lexer,
    readonly ctx: ActionContext,
  ) {}

  get symtab(): SymbolTable {
    return this.ctx.symtab;
  }

  addPrereq(text: string): void {
    this.prereqs = combine("and", this.prereqs, annotatedPrereq(text, this.symtab));
  }

  field(): FieldRef {
    const f = parseField(this.lexer, this.symtab);
    if (f.symbol.kind === "predicate")
      throw new OvnSyntaxError(`Predicate symbol ${f.symbol.name} used where lvalue required.`);
    this.prereqs = combine("and", this.prereqs, fieldPrereqs(f.symbol, this.symtab));
    return f;
  }

  typeCheck(f: FieldRef, nBits: number, rw: boolean): void {
    if (nBits !== f.nBits) {
      if (nBits && f.nBits)
        throw new OvnSyntaxError(
          `Cannot use ${f.nBits}-bit field ${f.symbol.name}[${f.ofs}..${f.ofs + f.nBits - 1}] where ${nBits}-bit field is required.`,
        );
      throw new OvnSyntaxError(
        nBits
          ? `Cannot use string field ${f.symbol.name} where numeric field is required.`
          : `Cannot use numeric field ${f.symbol.name} where string field is required.`,
      );
    }
    if (rw && (f.symbol.rw & this.scope) === 0)
      throw new OvnSyntaxError(`Field ${f.symbol.name} is not modifiable.`);
  }

  fieldOf(nBits: number, rw: boolean): FieldRef {
    const f = this.field();
    this.typeCheck(f, nBits, rw);
    return f;
  }

  parseActions(sentinel: "end" | "}"): Action[] {
    const lexer: Lexer = this.lexer;
    const atSentinel = () => (sentinel === "end" ? lexer.atEnd() : lexer.isPunct("}"));
    const ahead = lexer.lookahead();
    if (lexer.isId("drop") && ahead.type === "punct" && ahead.p === ";") {
      lexer.get();
      lexer.get();
      if (!atSentinel()) lexer.syntaxError(sentinel === "end" ? "expecting end of input" : "expecting `}'");
      if (sentinel === "}") lexer.get();
      return [];
    }
    const out: Action[] = [];
    while (!atSentinel()) {
      out.push(this.parseAction());
      lexer.force(";");
    }
    if (sentinel === "}") lexer.get();
    return out;
  }

  nextTable(name: string): number {
    if (this.ctx.table >= PIPELINE_TABLES)
      throw new OvnSyntaxError(`"${name}" action not allowed in last table.`);
    return this.ctx.table + 1;
  }

  uint16(what: string): number {
    const t = this.lexer.token;
    if (t.type === "int" && t.mask === undefined && t.format === "decimal" && t.value <= 65535n) {
      this.lexer.get();
      return Number(t.value);
    }
    this.lexer.syntaxError(`expecting ${what}`);
  }

  private parseAction(): Action {
    const lexer: Lexer = this.lexer;
    const token = lexer.token;
    if (token.type === "template") throw new OvnSyntaxError("Unexpanded template.");
    if (token.type !== "id") lexer.syntaxError("");
    const ahead = lexer.lookahead();
    if (ahead.type === "punct" && (ahead.p === "=" || ahead.p === "<->" || ahead.p === "["))
      return parseSet(this);
    const start = token.start;
    const name = token.s;
    lexer.get();
    switch (name) {
      case "next":
        return this.parseNext();
      case "push":
      case "pop": {
        lexer.force("(");
        const f = this.field();
        this.typeCheck(f, f.nBits, name === "pop");
        lexer.force(")");
        return { type: name, field: f };
      }
      case "output":
        return { type: "output" };
      case "ip.ttl":
        lexer.force("--");
        this.addPrereq("ip");
        return { type: "dec_ttl" };
      case "ct_next":
        this.addPrereq("ip");
        return { type: "ct_next", table: this.nextTable("ct_next") };
      case "ct_commit":
        return parseCtCommit(this);
      case "ct_dnat":
      case "ct_snat":
      case "ct_dnat_in_czone":
      case "ct_snat_in_czone":
        return parseCtNat(this, name);
      case "ct_lb":
      case "ct_lb_mark":
        return parseCtLb(this, name === "ct_lb_mark");
      case "ct_clear":
        return { type: "ct_clear" };
      case "ct_commit_nat":
        this.addPrereq("ip");
        return { type: "ct_commit_nat", table: this.nextTable("ct_commit_related") };
      case "clone":
        return this.nested("clone", undefined, WR_DEFAULT);
      case "arp":
      case "icmp4":
      case "icmp4_error":
        return this.nested(name, "ip4", this.scope);
      case "icmp6":
      case "icmp6_error":
      case "nd_ns":
        return this.nested(name, "ip6", this.scope);
      case "tcp_reset":
        return this.nested(name, "tcp", this.scope);
      case "sctp_abort":
        return this.nested(name, "sctp", this.scope);
      case "nd_na":
      case "nd_na_router":
        return this.nested(name, "nd_ns", this.scope);
      case "reject":
        return this.nested(name, undefined, this.scope);
      case "igmp":
      case "ct_snat_to_vip":
      case "handle_dhcpv6_reply":
      case "handle_bfd_msg":
        return { type: "simple", name };
      case "trigger_event":
      case "fwd_group":
      case "commit_ecmp_nh":
      case "commit_lb_aff":
      case "sample":
        return this.opaque(start);
      default: {
        const call = parseCall(this, name);
        if (call === undefined) throw new OvnSyntaxError(`Syntax error at \`${name}' expecting action.`);
        return call;
      }
    }
  }

  /** Skips to the `;` that ends the action, keeping its text (normalised to single spaces). */
  private opaque(start: number): Action {
    const lexer: Lexer = this.lexer;
    let depth = 0;
    while (!lexer.atEnd() && !(depth === 0 && lexer.isPunct(";"))) {
      if (lexer.isPunct("(") || lexer.isPunct("{")) depth++;
      if (lexer.isPunct(")") || lexer.isPunct("}")) depth--;
      lexer.get();
    }
    const text = lexer.input.slice(start, lexer.token.start).replace(/\s+/g, " ").trim();
    return { type: "opaque", text: `${text};` };
  }

  private parseNext(): Action {
    const lexer: Lexer = this.lexer;
    let pipeline = this.ctx.pipeline;
    let table = this.ctx.table + 1;
    if (lexer.match("(")) {
      if (lexer.isInt()) table = lexer.forceInt();
      else {
        do {
          if (lexer.matchId("pipeline")) {
            lexer.force("=");
            if (lexer.matchId("ingress")) pipeline = "ingress";
            else if (lexer.matchId("egress")) pipeline = "egress";
            else lexer.syntaxError('expecting "ingress" or "egress"');
          } else if (lexer.matchId("table")) {
            lexer.force("=");
            table = lexer.forceInt();
          } else lexer.syntaxError('expecting "pipeline" or "table"');
        } while (lexer.match(","));
      }
      lexer.force(")");
    }
    if (table >= PIPELINE_TABLES)
      throw new OvnSyntaxError(`"next" action cannot advance beyond table ${PIPELINE_TABLES - 1}.`);
    return { type: "next", pipeline, table, srcPipeline: this.ctx.pipeline, srcTable: this.ctx.table };
  }

  nested(name: NestedName, prereq: string | undefined, scope: number): Action {
    this.lexer.force("{");
    if (this.depth + 1 === 32) throw new OvnSyntaxError("maximum depth of nested actions reached");
    const inner = new ActionParser(this.lexer, this.ctx);
    inner.depth = this.depth + 1;
    inner.scope = scope;
    const actions = inner.parseActions("}");
    if (prereq !== undefined) this.addPrereq(prereq);
    else this.prereqs = combine("and", inner.prereqs, this.prereqs);
    return { type: "nested", name, actions };
  }
}

export function parseActions(text: string, ctx: ActionContext): ParsedActions {
  const lexer = new Lexer(text);
  const parser = new ActionParser(lexer, ctx);
  const actions = parser.parseActions("end");
  return { actions, prereqs: parser.prereqs };
}
