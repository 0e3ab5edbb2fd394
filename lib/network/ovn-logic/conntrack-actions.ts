/**
 * The conntrack actions' grammar (ovn/lib/actions.c): `ct_commit` with its mark and label or a nested
 * list, `ct_dnat`/`ct_snat` (and their `_in_czone` forms) with an address and a port range, and
 * `ct_lb`/`ct_lb_mark` with backends, `hash_fields` and a SNAT flag.
 */
import type { Action, LbDst } from "./action.ts";
import type { ActionReader } from "./action-reader.ts";
import type { Lexer } from "./lexer.ts";
import { WR_CT_COMMIT } from "./symbols.ts";

export function parseCtCommit(r: ActionReader): Action {
  const lexer: Lexer = r.lexer;
  if (lexer.isPunct("{")) return r.nested("ct_commit", "ip", WR_CT_COMMIT);
  r.addPrereq("ip");
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

export function parseCtNat(
  r: ActionReader,
  name: "ct_dnat" | "ct_snat" | "ct_dnat_in_czone" | "ct_snat_in_czone",
): Action {
  const lexer: Lexer = r.lexer;
  r.addPrereq("ip");
  const table = r.nextTable(name);
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
      if (lo.type !== "int" || lo.format !== "decimal") lexer.syntaxError("expecting Integer for port range");
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

export function parseCtLb(r: ActionReader, mark: boolean): Action {
  const lexer: Lexer = r.lexer;
  const table = r.nextTable("ct_lb");
  r.addPrereq("ip");
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
        const port = lexer.match(":") ? r.uint16("port number") : 0;
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
          port = r.uint16("port number");
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
