/**
 * The grammar of actions written as calls with arguments (ovn/lib/actions.c): MAC bindings and FDB
 * entries learnt (`get_arp`, `put_nd`, `put_fdb`), `set_queue`, `set_meter`, `handle_svc_check`,
 * `bind_vport` and `log`.
 */
import type { Action } from "./action.ts";
import type { ActionReader } from "./action-reader.ts";
import { type Lexer, OvnSyntaxError } from "./lexer.ts";

const severities = ["alert", "warning", "notice", "info", "debug"];

/** The call action `name` (its name already read), or undefined when `name` is not one. */
export function parseCall(r: ActionReader, name: string): Action | undefined {
  const lexer: Lexer = r.lexer;
  switch (name) {
    case "get_arp":
    case "get_nd": {
      lexer.force("(");
      const port = r.fieldOf(0, false);
      lexer.force(",");
      const ip = r.fieldOf(name === "get_arp" ? 32 : 128, false);
      lexer.force(")");
      return { type: "get_mac_bind", name, port, ip };
    }
    case "put_arp":
    case "put_nd": {
      lexer.force("(");
      const port = r.fieldOf(0, false);
      lexer.force(",");
      const ip = r.fieldOf(name === "put_arp" ? 32 : 128, false);
      lexer.force(",");
      const mac = r.fieldOf(48, false);
      lexer.force(")");
      return { type: "put_mac_bind", name, port, ip, mac };
    }
    case "put_fdb": {
      lexer.force("(");
      const port = r.fieldOf(0, false);
      lexer.force(",");
      const mac = r.fieldOf(48, false);
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
      return parseLog(r);
    case "set_meter":
      return parseSetMeter(r);
    case "handle_svc_check": {
      lexer.force("(");
      const port = r.fieldOf(0, false);
      lexer.force(")");
      return { type: "handle_svc_check", port };
    }
    case "bind_vport": {
      lexer.force("(");
      const vport = lexer.token;
      if (vport.type !== "string") lexer.syntaxError("expecting port name string");
      lexer.get();
      lexer.force(",");
      const parent = r.fieldOf(0, false);
      lexer.force(")");
      return { type: "bind_vport", vport: vport.s, parent };
    }
    default:
      return undefined;
  }
}

function parseSetMeter(r: ActionReader): Action {
  const lexer: Lexer = r.lexer;
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

function parseLog(r: ActionReader): Action {
  const lexer: Lexer = r.lexer;
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
