// size: split pending (issue 27, helper tidy)
/**
 * OVN logical-flow actions (ovn/lib/actions.c): parsed into plain objects, with the prerequisites
 * they add to the flow's match, and printed back exactly as `ovnacts_format` prints them (ovn-trace
 * shows that form, not the stored text). Actions a trace cannot follow (controller-only ones such as
 * `trigger_event` or `sample`) are kept as `opaque` with their text.
 */
import { formatHex, formatIpv4, formatIpv6, formatMac } from "./addresses.ts";
import {
  type AExpr,
  annotatedPrereq,
  type Constant,
  type ConstantSet,
  combine,
  fieldPrereqs,
  type ParseContext,
  parseConstantSet,
  parseField,
} from "./expr.ts";
import { type IntFormat, Lexer, OvnSyntaxError } from "./lexer.ts";
import { type OvnSymbol, type SymbolTable, WR_CT_COMMIT, WR_DEFAULT } from "./symbols.ts";

export type Pipeline = "ingress" | "egress";

/** `LOG_PIPELINE_LEN`: tables per pipeline. */
export const PIPELINE_TABLES = 29;

export interface FieldRef {
  symbol: OvnSymbol;
  ofs: number;
  nBits: number;
}

export interface LbDst {
  family: 4 | 6;
  ip: bigint;
  port: number;
}

export interface GenOption {
  name: string;
  value: ConstantSet;
}

type Nested =
  | "clone"
  | "arp"
  | "icmp4"
  | "icmp4_error"
  | "icmp6"
  | "icmp6_error"
  | "tcp_reset"
  | "sctp_abort"
  | "nd_na"
  | "nd_na_router"
  | "nd_ns"
  | "reject"
  | "ct_commit";

type Result =
  | "dns_lookup"
  | "chk_lb_hairpin"
  | "chk_lb_hairpin_reply"
  | "check_in_port_sec"
  | "check_out_port_sec"
  | "chk_ecmp_nh_mac"
  | "chk_ecmp_nh"
  | "chk_lb_aff";

export type Action =
  | { type: "output" }
  | { type: "next"; pipeline: Pipeline; table: number; srcPipeline: Pipeline; srcTable: number }
  | { type: "load"; dst: FieldRef; imm: Constant }
  | { type: "ovnfield_load"; name: string; value: bigint }
  | { type: "move" | "exchange"; lhs: FieldRef; rhs: FieldRef }
  | { type: "push" | "pop"; field: FieldRef }
  | { type: "dec_ttl" }
  | { type: "ct_next"; table: number }
  | { type: "ct_commit_v1"; mark: bigint; markMask: bigint; label: bigint; labelMask: bigint }
  | { type: "nested"; name: Nested; actions: Action[] }
  | {
      type: "ct_nat";
      name: "ct_dnat" | "ct_snat" | "ct_dnat_in_czone" | "ct_snat_in_czone";
      table: number;
      family: 4 | 6 | undefined;
      ip: bigint;
      portRange: { lo: number; hi: number } | undefined;
    }
  | { type: "ct_commit_nat"; table: number }
  | {
      type: "ct_lb";
      mark: boolean;
      table: number;
      dsts: LbDst[];
      hashFields: string | undefined;
      flag: "skip_snat" | "force_snat" | undefined;
    }
  | { type: "select"; res: FieldRef; dsts: { id: number; weight: number }[]; table: number }
  | { type: "ct_clear" }
  | { type: "get_mac_bind"; name: "get_arp" | "get_nd"; port: FieldRef; ip: FieldRef }
  | { type: "put_mac_bind"; name: "put_arp" | "put_nd"; port: FieldRef; ip: FieldRef; mac: FieldRef }
  | {
      type: "lookup_mac_bind";
      name: "lookup_arp" | "lookup_nd";
      dst: FieldRef;
      port: FieldRef;
      ip: FieldRef;
      mac: FieldRef;
    }
  | {
      type: "lookup_mac_bind_ip";
      name: "lookup_arp_ip" | "lookup_nd_ip";
      dst: FieldRef;
      port: FieldRef;
      ip: FieldRef;
    }
  | {
      type: "put_opts";
      name: "put_dhcp_opts" | "put_dhcpv6_opts" | "put_nd_ra_opts";
      dst: FieldRef;
      options: GenOption[];
    }
  | { type: "result"; name: Result; dst: FieldRef }
  | { type: "check_pkt_larger"; dst: FieldRef; len: number }
  | { type: "get_fdb"; dst: FieldRef; mac: FieldRef }
  | { type: "lookup_fdb"; dst: FieldRef; port: FieldRef; mac: FieldRef }
  | { type: "put_fdb"; port: FieldRef; mac: FieldRef }
  | { type: "log"; name: string | undefined; verdict: string; severity: string; meter: string | undefined }
  | { type: "set_meter"; rate: bigint; burst: bigint }
  | { type: "set_queue"; id: number }
  | { type: "handle_svc_check"; port: FieldRef }
  | { type: "bind_vport"; vport: string; parent: FieldRef }
  | { type: "simple"; name: "igmp" | "ct_snat_to_vip" | "handle_dhcpv6_reply" | "handle_bfd_msg" }
  | { type: "opaque"; text: string };

export interface ActionContext extends ParseContext {
  pipeline: Pipeline;
  table: number;
}

export interface ParsedActions {
  actions: Action[];
  /** Conditions the actions add to the flow's match (fields they touch, `ip` for conntrack, ...). */
  prereqs: AExpr | undefined;
}

const severities = ["alert", "warning", "notice", "info", "debug"];

class ActionParser {
  prereqs: AExpr | undefined;
  depth = 0;
  scope = WR_DEFAULT;

  constructor(
    readonly lexer: Lexer,
    readonly ctx: ActionContext,
  ) {}

  private get symtab(): SymbolTable {
    return this.ctx.symtab;
  }

  private addPrereq(text: string): void {
    this.prereqs = combine("and", this.prereqs, annotatedPrereq(text, this.symtab));
  }

  /** expr_field_parse: a field, with its prerequisites added to the match. */
  private field(): FieldRef {
    const f = parseField(this.lexer, this.symtab);
    if (f.symbol.kind === "predicate")
      throw new OvnSyntaxError(`Predicate symbol ${f.symbol.name} used where lvalue required.`);
    this.prereqs = combine("and", this.prereqs, fieldPrereqs(f.symbol, this.symtab));
    return f;
  }

  private typeCheck(f: FieldRef, nBits: number, rw: boolean): void {
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

  private fieldOf(nBits: number, rw: boolean): FieldRef {
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

  private nextTable(name: string): number {
    if (this.ctx.table >= PIPELINE_TABLES)
      throw new OvnSyntaxError(`"${name}" action not allowed in last table.`);
    return this.ctx.table + 1;
  }

  // size: split pending (issue 27, helper tidy)
  private parseAction(): Action {
    const lexer: Lexer = this.lexer;
    const token = lexer.token;
    if (token.type === "template") throw new OvnSyntaxError("Unexpanded template.");
    if (token.type !== "id") lexer.syntaxError("");
    const ahead = lexer.lookahead();
    if (ahead.type === "punct" && (ahead.p === "=" || ahead.p === "<->" || ahead.p === "["))
      return this.parseSet();
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
        return this.parseCtCommit();
      case "ct_dnat":
      case "ct_snat":
      case "ct_dnat_in_czone":
      case "ct_snat_in_czone":
        return this.parseCtNat(name);
      case "ct_lb":
      case "ct_lb_mark":
        return this.parseCtLb(name === "ct_lb_mark");
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
        return { type: "simple", name };
      case "handle_bfd_msg":
        return { type: "simple", name };
      case "get_arp":
      case "get_nd": {
        lexer.force("(");
        const port = this.fieldOf(0, false);
        lexer.force(",");
        const ip = this.fieldOf(name === "get_arp" ? 32 : 128, false);
        lexer.force(")");
        return { type: "get_mac_bind", name, port, ip };
      }
      case "put_arp":
      case "put_nd": {
        lexer.force("(");
        const port = this.fieldOf(0, false);
        lexer.force(",");
        const ip = this.fieldOf(name === "put_arp" ? 32 : 128, false);
        lexer.force(",");
        const mac = this.fieldOf(48, false);
        lexer.force(")");
        return { type: "put_mac_bind", name, port, ip, mac };
      }
      case "put_fdb": {
        lexer.force("(");
        const port = this.fieldOf(0, false);
        lexer.force(",");
        const mac = this.fieldOf(48, false);
        lexer.force(")");
        return { type: "put_fdb", port, mac };
      }
      case "set_queue": {
        lexer.force("(");
        const id = lexer.forceInt();
        lexer.force(")");
        return { type: "set_queue", id };
      }
      case "log":
        return this.parseLog();
      case "set_meter": {
        lexer.force("(");
        const int = () => {
          const t = lexer.token;
          const v = t.type === "int" && t.format === "decimal" ? t.value : 0n;
          lexer.get();
          return v;
        };
        const rate = int();
        const burst = lexer.match(",") ? int() : 0n;
        lexer.force(")");
        if (rate === 0n) throw new OvnSyntaxError(`Rate ${rate} for set_meter is not in valid.`);
        return { type: "set_meter", rate, burst };
      }
      case "handle_svc_check": {
        lexer.force("(");
        const port = this.fieldOf(0, false);
        lexer.force(")");
        return { type: "handle_svc_check", port };
      }
      case "bind_vport": {
        lexer.force("(");
        const vport = lexer.token;
        if (vport.type !== "string") lexer.syntaxError("expecting port name string");
        lexer.get();
        lexer.force(",");
        const parent = this.fieldOf(0, false);
        lexer.force(")");
        return { type: "bind_vport", vport: vport.s, parent };
      }
      case "trigger_event":
      case "fwd_group":
      case "commit_ecmp_nh":
      case "commit_lb_aff":
      case "sample":
        return this.opaque(start);
      default:
        throw new OvnSyntaxError(`Syntax error at \`${name}' expecting action.`);
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

  private nested(name: Nested, prereq: string | undefined, scope: number): Action {
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

  private parseCtCommit(): Action {
    const lexer: Lexer = this.lexer;
    if (lexer.isPunct("{")) return this.nested("ct_commit", "ip", WR_CT_COMMIT);
    this.addPrereq("ip");
    if (!lexer.match("(")) return { type: "nested", name: "ct_commit", actions: [] };
    const cc = { type: "ct_commit_v1" as const, mark: 0n, markMask: 0n, label: 0n, labelMask: 0n };
    while (!lexer.match(")")) {
      const which = lexer.matchId("ct_mark") ? "mark" : lexer.matchId("ct_label") ? "label" : undefined;
      if (which === undefined) lexer.syntaxError("");
      lexer.force("=");
      const t = lexer.token;
      if (t.type !== "int") lexer.syntaxError("expecting integer");
      const full = which === "mark" ? 0xffffffffn : (1n << 128n) - 1n;
      if (which === "mark") {
        cc.mark = t.value & full;
        cc.markMask = t.mask ?? full;
      } else {
        cc.label = t.value & full;
        cc.labelMask = t.mask ?? full;
      }
      lexer.get();
      lexer.match(",");
    }
    return cc;
  }

  private parseCtNat(name: "ct_dnat" | "ct_snat" | "ct_dnat_in_czone" | "ct_snat_in_czone"): Action {
    const lexer: Lexer = this.lexer;
    this.addPrereq("ip");
    const table = this.nextTable(name);
    const action: Action & { type: "ct_nat" } = {
      type: "ct_nat",
      name,
      table,
      family: undefined,
      ip: 0n,
      portRange: undefined,
    };
    if (lexer.match("(")) {
      const t = lexer.token;
      if (t.type !== "int" || (t.format !== "ipv4" && t.format !== "ipv6"))
        lexer.syntaxError("expecting IPv4 or IPv6 address");
      action.family = t.format === "ipv4" ? 4 : 6;
      action.ip = t.value;
      lexer.get();
      if (lexer.match(",")) {
        const lo = lexer.token;
        if (lo.type !== "int" || lo.format !== "decimal")
          lexer.syntaxError("expecting Integer for port range");
        const range = { lo: Number(lo.value), hi: 0 };
        if (range.lo === 0) lexer.syntaxError("range can't be 0");
        lexer.get();
        if (lexer.match("-")) {
          const hi = lexer.token;
          if (hi.type !== "int") lexer.syntaxError("expecting Integer for port range");
          range.hi = Number(hi.value);
          if (range.hi <= range.lo) lexer.syntaxError("range high should be greater than range low");
          lexer.get();
        }
        action.portRange = range;
      }
      lexer.force(")");
    }
    return action;
  }

  private uint16(what: string): number {
    const t = this.lexer.token;
    if (t.type === "int" && t.mask === undefined && t.format === "decimal" && t.value <= 65535n) {
      this.lexer.get();
      return Number(t.value);
    }
    this.lexer.syntaxError(`expecting ${what}`);
  }

  private parseCtLb(mark: boolean): Action {
    const lexer: Lexer = this.lexer;
    const table = this.nextTable("ct_lb");
    this.addPrereq("ip");
    const dsts: LbDst[] = [];
    let hashFields: string | undefined;
    let flag: "skip_snat" | "force_snat" | undefined;
    if (lexer.match("(") && !lexer.match(")")) {
      if (!lexer.matchId("backends")) lexer.syntaxError("expecting backends");
      lexer.force("=");
      while (!lexer.match(";") && !lexer.match(")")) {
        if (lexer.match("[")) {
          const t = lexer.token;
          if (t.type !== "int" || t.format !== "ipv6") lexer.syntaxError("expecting IPv6 address");
          lexer.get();
          if (!lexer.match("]")) lexer.syntaxError("no closing square bracket");
          const port = lexer.match(":") ? this.uint16("port number") : 0;
          dsts.push({ family: 6, ip: t.value, port });
        } else {
          const t = lexer.token;
          if (t.type !== "int" || (t.format !== "ipv4" && t.format !== "ipv6"))
            lexer.syntaxError("expecting IP address");
          lexer.get();
          let port = 0;
          if (lexer.match(":")) {
            if (t.format === "ipv6")
              lexer.syntaxError("IPv6 address needs square brackets if port is included");
            port = this.uint16("port number");
          }
          dsts.push({ family: t.format === "ipv4" ? 4 : 6, ip: t.value, port });
        }
        lexer.match(",");
      }
      if (lexer.matchId("hash_fields")) {
        const t = lexer.token;
        if (!lexer.match("=") || lexer.token.type !== "string") lexer.syntaxError("invalid hash_fields");
        hashFields = (lexer.token as { s: string }).s;
        void t;
        lexer.get();
        if (!lexer.match(";")) lexer.get();
      }
      if (lexer.matchId("skip_snat")) {
        flag = "skip_snat";
        lexer.get();
      } else if (lexer.matchId("force_snat")) {
        flag = "force_snat";
        lexer.get();
      }
    }
    return { type: "ct_lb", mark, table, dsts, hashFields, flag };
  }

  private parseLog(): Action {
    const lexer: Lexer = this.lexer;
    const log: Action & { type: "log" } = {
      type: "log",
      name: undefined,
      verdict: "",
      severity: "info",
      meter: undefined,
    };
    if (lexer.match("(")) {
      while (!lexer.match(")")) {
        if (lexer.matchId("verdict")) {
          lexer.force("=");
          const t = lexer.token;
          if (t.type !== "id" || !["drop", "reject", "allow"].includes(t.s))
            lexer.syntaxError("unknown verdict");
          log.verdict = t.s;
          lexer.get();
        } else if (lexer.matchId("name") || lexer.matchId("meter")) {
          const isName = lexer.input.slice(0, lexer.token.start).trimEnd().endsWith("name");
          lexer.force("=");
          const t = lexer.token;
          if (t.type !== "string") lexer.syntaxError("expecting string");
          if (isName) log.name = t.s;
          else log.meter = t.s;
          lexer.get();
        } else if (lexer.matchId("severity")) {
          lexer.force("=");
          const t = lexer.token;
          if (t.type !== "id" || !severities.includes(t.s)) lexer.syntaxError("unknown severity");
          log.severity = t.s;
          lexer.get();
        } else lexer.syntaxError("");
        lexer.match(",");
      }
    }
    if (log.verdict === "") lexer.syntaxError("expecting verdict");
    return log;
  }

  private parseSet(): Action {
    const lexer: Lexer = this.lexer;
    const lhs = this.field();
    if (lexer.match("<->")) return this.parseAssignment(true, lhs);
    if (!lexer.match("=")) lexer.syntaxError("expecting `=' or `<->'");
    const t = lexer.token;
    const ahead = lexer.lookahead();
    const call = t.type === "id" && ahead.type === "punct" && ahead.p === "(" ? t.s : undefined;
    switch (call) {
      case undefined:
        if (t.type !== "id") return this.parseLoad(lhs);
        return this.parseAssignment(false, lhs);
      case "select":
        return this.parseSelect(lhs);
      case "put_dhcp_opts":
      case "put_dhcpv6_opts":
      case "put_nd_ra_opts":
        return this.parsePutOpts(call, lhs);
      case "lookup_arp":
      case "lookup_nd":
      case "lookup_arp_ip":
      case "lookup_nd_ip": {
        this.typeCheck(lhs, 1, true);
        lexer.get();
        lexer.get();
        const port = this.fieldOf(0, false);
        lexer.force(",");
        const ip = this.fieldOf(call.startsWith("lookup_arp") ? 32 : 128, false);
        if (call === "lookup_arp_ip" || call === "lookup_nd_ip") {
          lexer.force(")");
          return { type: "lookup_mac_bind_ip", name: call, dst: lhs, port, ip };
        }
        lexer.force(",");
        const mac = this.fieldOf(48, false);
        lexer.force(")");
        return { type: "lookup_mac_bind", name: call, dst: lhs, port, ip, mac };
      }
      case "dns_lookup":
      case "chk_lb_hairpin":
      case "chk_lb_hairpin_reply":
      case "check_in_port_sec":
      case "check_out_port_sec":
      case "chk_ecmp_nh_mac":
      case "chk_ecmp_nh":
      case "chk_lb_aff": {
        lexer.get();
        lexer.get();
        if (!lexer.match(")")) throw new OvnSyntaxError(`${call} doesn't take any parameters`);
        this.typeCheck(lhs, 1, true);
        if (call === "dns_lookup") this.addPrereq("udp");
        return { type: "result", name: call, dst: lhs };
      }
      case "check_pkt_larger": {
        this.typeCheck(lhs, 1, true);
        lexer.get();
        lexer.force("(");
        const len = lexer.forceInt();
        lexer.force(")");
        return { type: "check_pkt_larger", dst: lhs, len };
      }
      case "get_fdb": {
        lexer.get();
        lexer.get();
        if (lhs.nBits) this.typeCheck(lhs, 32, true);
        const mac = this.fieldOf(48, false);
        lexer.force(")");
        return { type: "get_fdb", dst: lhs, mac };
      }
      case "lookup_fdb": {
        lexer.get();
        lexer.get();
        this.typeCheck(lhs, 1, true);
        const port = this.fieldOf(0, false);
        lexer.force(",");
        const mac = this.fieldOf(48, false);
        lexer.force(")");
        return { type: "lookup_fdb", dst: lhs, port, mac };
      }
      default:
        return this.parseAssignment(false, lhs);
    }
  }

  private parseLoad(lhs: FieldRef): Action {
    this.typeCheck(lhs, lhs.nBits, true);
    const cs = parseConstantSet(this.lexer, { symtab: this.symtab });
    const c = cs.values[0];
    if (c === undefined || cs.values.length !== 1 || cs.inCurlies)
      throw new OvnSyntaxError("expecting constant");
    if (c.kind !== (lhs.symbol.width ? "int" : "string"))
      throw new OvnSyntaxError(
        `${lhs.symbol.width ? "Integer" : "String"} field ${lhs.symbol.name} is not compatible with ${c.kind === "int" ? "integer" : "string"} constant.`,
      );
    if (lhs.symbol.kind === "ovn_field")
      return { type: "ovnfield_load", name: lhs.symbol.name, value: (c as { value: bigint }).value };
    return { type: "load", dst: lhs, imm: c };
  }

  private parseAssignment(exchange: boolean, lhs: FieldRef): Action {
    const rhs = this.field();
    const verb = exchange ? "exchange" : "assign";
    if ((lhs.symbol.width !== 0) !== (rhs.symbol.width !== 0))
      throw new OvnSyntaxError(
        `Can't ${verb} ${lhs.symbol.name} and ${rhs.symbol.name}: one is a string field.`,
      );
    if (lhs.nBits !== rhs.nBits)
      throw new OvnSyntaxError(
        exchange
          ? `Can't exchange ${lhs.nBits}-bit field with ${rhs.nBits}-bit field.`
          : `Can't assign ${rhs.nBits}-bit value to ${lhs.nBits}-bit destination.`,
      );
    this.typeCheck(lhs, lhs.nBits, true);
    this.typeCheck(rhs, rhs.nBits, exchange);
    return { type: exchange ? "exchange" : "move", lhs, rhs };
  }

  private parseSelect(res: FieldRef): Action {
    const lexer: Lexer = this.lexer;
    this.typeCheck(res, res.nBits, true);
    if (res.nBits < 16)
      throw new OvnSyntaxError(
        `cannot use ${res.nBits}-bit field ${res.symbol.name} for "select", which requires at least 16 bits.`,
      );
    const table = this.nextTable("select");
    lexer.get();
    lexer.get();
    const dsts: { id: number; weight: number }[] = [];
    while (!lexer.match(")")) {
      const id = this.uint16("id");
      let weight = 0;
      if (lexer.match("=")) {
        weight = this.uint16("weight");
        if (weight === 0) lexer.syntaxError("weight can't be 0");
      }
      dsts.push({ id, weight: weight === 0 ? 100 : weight });
      lexer.match(",");
    }
    if (dsts.length <= 1) lexer.syntaxError("expecting at least 2 group members");
    return { type: "select", res, dsts, table };
  }

  private parsePutOpts(name: "put_dhcp_opts" | "put_dhcpv6_opts" | "put_nd_ra_opts", dst: FieldRef): Action {
    const lexer: Lexer = this.lexer;
    lexer.get();
    lexer.get();
    this.typeCheck(dst, 1, true);
    const options: GenOption[] = [];
    while (!lexer.match(")")) {
      const t = lexer.token;
      if (t.type !== "id") lexer.syntaxError("");
      lexer.get();
      lexer.force("=");
      options.push({ name: t.s, value: parseConstantSet(lexer, { symtab: this.symtab }) });
      lexer.match(",");
    }
    if (name === "put_nd_ra_opts") this.addPrereq("ip6");
    return { type: "put_opts", name, dst, options };
  }
}

export function parseActions(text: string, ctx: ActionContext): ParsedActions {
  const lexer = new Lexer(text);
  const parser = new ActionParser(lexer, ctx);
  const actions = parser.parseActions("end");
  return { actions, prereqs: parser.prereqs };
}

/** expr_field_format. */
export function formatField(f: FieldRef): string {
  if (f.ofs === 0 && f.nBits === f.symbol.width) return f.symbol.name;
  return f.nBits === 1 ? `${f.symbol.name}[${f.ofs}]` : `${f.symbol.name}[${f.ofs}..${f.ofs + f.nBits - 1}]`;
}

function formatValue(value: bigint, format: IntFormat): string {
  switch (format) {
    case "decimal":
      return value.toString();
    case "hex":
      return formatHex(value);
    case "ipv4":
      return formatIpv4(value);
    case "ipv6":
      return formatIpv6(value);
    case "ethernet":
      return formatMac(value);
  }
}

const zeroBitsOf: Record<string, number> = { decimal: 64, hex: 1024, ipv4: 32, ipv6: 128, ethernet: 48 };

/** expr_constant_format (lex_token_format): a value too wide for its written format prints as hex. */
export function formatConstant(c: Constant): string {
  if (c.kind === "string") return JSON.stringify(c.s);
  const fits = (v: bigint) => v >> BigInt(zeroBitsOf[c.format] ?? 1024) === 0n;
  const format = fits(c.value) && (c.mask === undefined || fits(c.mask)) ? c.format : "hex";
  const value = formatValue(c.value, format);
  if (c.mask === undefined) return value;
  if (format === "ipv4" || (c.format === "ipv6" && format === "ipv6")) {
    const width = format === "ipv4" ? 32 : 128;
    for (let p = 0; p <= width; p++) {
      if ((p === 0 ? 0n : ((1n << BigInt(p)) - 1n) << BigInt(width - p)) === c.mask) return `${value}/${p}`;
    }
  }
  return `${value}/${formatValue(c.mask, format)}`;
}

/** expr_constant_set_format. */
export function formatConstantSet(cs: ConstantSet): string {
  const body = cs.values.map(formatConstant).join(", ");
  return cs.inCurlies || cs.values.length !== 1 ? `{${body}}` : body;
}

function formatLbDst(d: LbDst): string {
  if (d.family === 4) return d.port ? `${formatIpv4(d.ip)}:${d.port}` : formatIpv4(d.ip);
  return d.port ? `[${formatIpv6(d.ip)}]:${d.port}` : formatIpv6(d.ip);
}

/** ovnacts_format of one action. */
export function formatAction(a: Action): string {
  switch (a.type) {
    case "output":
      return "output;";
    case "next":
      if (a.pipeline !== a.srcPipeline) return `next(pipeline=${a.pipeline}, table=${a.table});`;
      if (a.table !== a.srcTable + 1) return `next(${a.table});`;
      return "next;";
    case "load":
      return `${formatField(a.dst)} = ${formatConstant(a.imm)};`;
    case "ovnfield_load":
      return `${a.name} = ${a.value};`;
    case "move":
      return `${formatField(a.lhs)} = ${formatField(a.rhs)};`;
    case "exchange":
      return `${formatField(a.lhs)} <-> ${formatField(a.rhs)};`;
    case "push":
    case "pop":
      return `${a.type}(${formatField(a.field)});`;
    case "dec_ttl":
      return "ip.ttl--;";
    case "ct_next":
      return "ct_next;";
    case "ct_commit_v1": {
      const parts: string[] = [];
      if (a.markMask !== 0n)
        parts.push(
          `ct_mark=0x${a.mark.toString(16)}${a.markMask !== 0xffffffffn ? `/0x${a.markMask.toString(16)}` : ""}`,
        );
      if (a.labelMask !== 0n)
        parts.push(
          `ct_label=${formatHex(a.label)}${a.labelMask !== (1n << 128n) - 1n ? `/${formatHex(a.labelMask)}` : ""}`,
        );
      return parts.length === 0 ? "ct_commit;" : `ct_commit(${parts.join(", ")});`;
    }
    case "nested":
      if (a.name === "ct_commit" && a.actions.length === 0) return "ct_commit;";
      return `${a.name} { ${formatActions(a.actions)} };`;
    case "ct_nat": {
      let s: string = a.name;
      if (a.family === 4) s += `(${formatIpv4(a.ip)})`;
      else if (a.family === 6) s += `(${formatIpv6(a.ip)})`;
      if (a.portRange !== undefined) {
        s = s.endsWith(")") ? s.slice(0, -1) : s;
        s += `,${a.portRange.lo}${a.portRange.hi ? `-${a.portRange.hi}` : ""})`;
      }
      return `${s};`;
    }
    case "ct_commit_nat":
      return "ct_commit_nat;";
    case "ct_lb": {
      let s = a.mark ? "ct_lb_mark" : "ct_lb";
      if (a.dsts.length > 0) {
        s += `(backends=${a.dsts.map(formatLbDst).join(",")}`;
        if (a.hashFields !== undefined) s += `; hash_fields="${a.hashFields}"`;
        if (a.flag !== undefined) s += `; ${a.flag}`;
        s += ")";
      }
      return `${s};`;
    }
    case "select":
      return `${formatField(a.res)} = select(${a.dsts.map((d) => `${d.id}=${d.weight}`).join(", ")});`;
    case "ct_clear":
      return "ct_clear;";
    case "get_mac_bind":
      return `${a.name}(${formatField(a.port)}, ${formatField(a.ip)});`;
    case "put_mac_bind":
      return `${a.name}(${formatField(a.port)}, ${formatField(a.ip)}, ${formatField(a.mac)});`;
    case "lookup_mac_bind":
      return `${formatField(a.dst)} = ${a.name}(${formatField(a.port)}, ${formatField(a.ip)}, ${formatField(a.mac)});`;
    case "lookup_mac_bind_ip":
      return `${formatField(a.dst)} = ${a.name}(${formatField(a.port)}, ${formatField(a.ip)});`;
    case "put_opts":
      return `${formatField(a.dst)} = ${a.name}(${a.options.map((o) => `${o.name} = ${formatConstantSet(o.value)}`).join(", ")});`;
    case "result":
      return `${formatField(a.dst)} = ${a.name}();`;
    case "check_pkt_larger":
      return `${formatField(a.dst)} = check_pkt_larger(${a.len});`;
    case "get_fdb":
      return `${formatField(a.dst)} = get_fdb(${formatField(a.mac)});`;
    case "lookup_fdb":
      return `${formatField(a.dst)} = lookup_fdb(${formatField(a.port)}, ${formatField(a.mac)});`;
    case "put_fdb":
      return `put_fdb(${formatField(a.port)}, ${formatField(a.mac)});`;
    case "log": {
      let s = "log(";
      if (a.name !== undefined) s += `name="${a.name}", `;
      s += `verdict=${a.verdict}, severity=${a.severity}`;
      if (a.meter !== undefined) s += `, meter="${a.meter}"`;
      return `${s});`;
    }
    case "set_meter":
      return a.burst ? `set_meter(${a.rate}, ${a.burst});` : `set_meter(${a.rate});`;
    case "set_queue":
      return `set_queue(${a.id});`;
    case "handle_svc_check":
      return `handle_svc_check(${formatField(a.port)});`;
    case "bind_vport":
      return `bind_vport("${a.vport}", ${formatField(a.parent)});`;
    case "simple":
      return a.name === "handle_dhcpv6_reply" ? "handle_dhcpv6_reply;" : `${a.name};`;
    case "opaque":
      return a.text;
  }
}

/** ovnacts_format: the actions separated by spaces, `drop;` for none. */
export function formatActions(actions: readonly Action[]): string {
  return actions.length === 0 ? "drop;" : actions.map(formatAction).join(" ");
}
