/**
 * Actions printed back exactly as `ovnacts_format` prints them (ovn/lib/actions.c): ovn-trace shows
 * that form, not the stored text.
 */
import type { Action, FieldRef, LbDst } from "./action.ts";
import { formatHex, formatIpv4, formatIpv6, formatMac } from "./addresses.ts";
import type { Constant, ConstantSet } from "./expr.ts";
import type { IntFormat } from "./lexer.ts";

/** expr_field_format. */
export function formatField(f: FieldRef): string {
  if (f.ofs === 0 && f.nBits === f.symbol.width) return f.symbol.name;
  return f.nBits === 1 ? `${f.symbol.name}[${f.ofs}]` : `${f.symbol.name}[${f.ofs}..${f.ofs + f.nBits - 1}]`;
}

/** A value in one of the lexer's integer formats, as OVN prints it. */
export function formatValue(value: bigint, format: IntFormat): string {
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
function formatConstant(c: Constant): string {
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
