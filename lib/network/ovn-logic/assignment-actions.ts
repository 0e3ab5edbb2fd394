/**
 * The grammar of actions that start with a field (ovn/lib/actions.c): a load of a constant, a move or
 * an exchange of fields, and the calls whose result lands in a field (`select`, `put_dhcp_opts`,
 * `lookup_arp`, `chk_lb_hairpin`, `check_pkt_larger`, `get_fdb`, ...).
 */
import type { Action, FieldRef, GenOption } from "./action.ts";
import type { ActionReader } from "./action-reader.ts";
import { parseConstantSet } from "./expr.ts";
import { type Lexer, OvnSyntaxError } from "./lexer.ts";

/** An action that starts with a field (`lhs = ...`, `lhs <-> rhs`). */
export function parseSet(r: ActionReader): Action {
  const lexer: Lexer = r.lexer;
  const lhs = r.field();
  if (lexer.match("<->")) return parseAssignment(r, true, lhs);
  if (!lexer.match("=")) lexer.syntaxError("expecting `=' or `<->'");
  const t = lexer.token;
  const ahead = lexer.lookahead();
  const call = t.type === "id" && ahead.type === "punct" && ahead.p === "(" ? t.s : undefined;
  switch (call) {
    case undefined:
      if (t.type !== "id") return parseLoad(r, lhs);
      return parseAssignment(r, false, lhs);
    case "select":
      return parseSelect(r, lhs);
    case "put_dhcp_opts":
    case "put_dhcpv6_opts":
    case "put_nd_ra_opts":
      return parsePutOpts(r, call, lhs);
    case "lookup_arp":
    case "lookup_nd":
    case "lookup_arp_ip":
    case "lookup_nd_ip": {
      r.typeCheck(lhs, 1, true);
      lexer.get();
      lexer.get();
      const port = r.fieldOf(0, false);
      lexer.force(",");
      const ip = r.fieldOf(call.startsWith("lookup_arp") ? 32 : 128, false);
      if (call === "lookup_arp_ip" || call === "lookup_nd_ip") {
        lexer.force(")");
        return { type: "lookup_mac_bind_ip", name: call, dst: lhs, port, ip };
      }
      lexer.force(",");
      const mac = r.fieldOf(48, false);
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
      r.typeCheck(lhs, 1, true);
      if (call === "dns_lookup") r.addPrereq("udp");
      return { type: "result", name: call, dst: lhs };
    }
    case "check_pkt_larger": {
      r.typeCheck(lhs, 1, true);
      lexer.get();
      lexer.force("(");
      const len = lexer.forceInt();
      lexer.force(")");
      return { type: "check_pkt_larger", dst: lhs, len };
    }
    case "get_fdb": {
      lexer.get();
      lexer.get();
      if (lhs.nBits) r.typeCheck(lhs, 32, true);
      const mac = r.fieldOf(48, false);
      lexer.force(")");
      return { type: "get_fdb", dst: lhs, mac };
    }
    case "lookup_fdb": {
      lexer.get();
      lexer.get();
      r.typeCheck(lhs, 1, true);
      const port = r.fieldOf(0, false);
      lexer.force(",");
      const mac = r.fieldOf(48, false);
      lexer.force(")");
      return { type: "lookup_fdb", dst: lhs, port, mac };
    }
    default:
      return parseAssignment(r, false, lhs);
  }
}

function parseLoad(r: ActionReader, lhs: FieldRef): Action {
  r.typeCheck(lhs, lhs.nBits, true);
  const cs = parseConstantSet(r.lexer, { symtab: r.symtab });
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

function parseAssignment(r: ActionReader, exchange: boolean, lhs: FieldRef): Action {
  const rhs = r.field();
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
  r.typeCheck(lhs, lhs.nBits, true);
  r.typeCheck(rhs, rhs.nBits, exchange);
  return { type: exchange ? "exchange" : "move", lhs, rhs };
}

function parseSelect(r: ActionReader, res: FieldRef): Action {
  const lexer: Lexer = r.lexer;
  r.typeCheck(res, res.nBits, true);
  if (res.nBits < 16)
    throw new OvnSyntaxError(
      `cannot use ${res.nBits}-bit field ${res.symbol.name} for "select", which requires at least 16 bits.`,
    );
  const table = r.nextTable("select");
  lexer.get();
  lexer.get();
  const dsts: { id: number; weight: number }[] = [];
  while (!lexer.match(")")) {
    const id = r.uint16("id");
    let weight = 0;
    if (lexer.match("=")) {
      weight = r.uint16("weight");
      if (weight === 0) lexer.syntaxError("weight can't be 0");
    }
    dsts.push({ id, weight: weight === 0 ? 100 : weight });
    lexer.match(",");
  }
  if (dsts.length <= 1) lexer.syntaxError("expecting at least 2 group members");
  return { type: "select", res, dsts, table };
}

function parsePutOpts(
  r: ActionReader,
  name: "put_dhcp_opts" | "put_dhcpv6_opts" | "put_nd_ra_opts",
  dst: FieldRef,
): Action {
  const lexer: Lexer = r.lexer;
  lexer.get();
  lexer.get();
  r.typeCheck(dst, 1, true);
  const options: GenOption[] = [];
  while (!lexer.match(")")) {
    const t = lexer.token;
    if (t.type !== "id") lexer.syntaxError("");
    lexer.get();
    lexer.force("=");
    options.push({ name: t.s, value: parseConstantSet(lexer, { symtab: r.symtab }) });
    lexer.match(",");
  }
  if (name === "put_nd_ra_opts") r.addPrereq("ip6");
  return { type: "put_opts", name, dst, options };
}
