/**
 * OVN's symbol table (ovn/lib/logical-fields.c, ovn_init_symtab): the names a logical flow may use,
 * each an OpenFlow field, a subfield of another symbol, a string field (logical ports), a predicate
 * (an expression with a name, such as `ip4` or `tcp`), or an OVN-only field. Prerequisites are kept
 * as the expression text OVN keeps them as; the expression module expands them.
 */
import { type MfField, mfField } from "./flow.ts";

export type Level = "nominal" | "boolean" | "ordinal";

/** Where a field may be written: anywhere, or only inside `ct_commit { }`. */
export const WR_DEFAULT = 1;
export const WR_CT_COMMIT = 2;

interface Common {
  name: string;
  /** Bits; 0 for a string field. */
  width: number;
  prereqs: string | undefined;
  level: Level;
  /** Bitmask of the scopes in which the symbol may be written (0: read-only). */
  rw: number;
}

export type OvnSymbol =
  | (Common & { kind: "field"; field: MfField })
  | (Common & { kind: "string"; field: MfField })
  | (Common & { kind: "subfield"; parent: OvnSymbol; parentOfs: number })
  | (Common & { kind: "predicate"; expansion: string })
  | (Common & { kind: "ovn_field"; nBytes: number });

export type SymbolTable = ReadonlyMap<string, OvnSymbol>;

/** Bits of the logical flags register (reg10) that have names. */
export const MLF_ALLOW_LOOPBACK = 1n;

/** Connection-tracking state bits, in the order OVS prints them. */
export const ctStateNames = ["new", "est", "rel", "rpl", "inv", "trk", "snat", "dnat"] as const;
export const CS_ESTABLISHED = 2n;
export const CS_TRACKED = 32n;
export const CS_SRC_NAT = 64n;
export const CS_DST_NAT = 128n;

// size: split pending (issue 27, helper tidy)
function build(): Map<string, OvnSymbol> {
  const table = new Map<string, OvnSymbol>();
  const add = (symbol: OvnSymbol) => {
    table.set(symbol.name, symbol);
  };
  const lookup = (name: string): OvnSymbol => {
    const s = table.get(name);
    if (s === undefined) throw new Error(`symbol ${name} used before it is defined`);
    return s;
  };
  const field = (name: string, mf: string, prereqs?: string, scope = WR_DEFAULT) => {
    const f = mfField(mf);
    add({
      kind: "field",
      name,
      width: f.nBits,
      prereqs,
      level: f.maskable ? "ordinal" : "nominal",
      rw: f.writable ? scope : 0,
      field: f,
    });
  };
  const subfield = (
    name: string,
    prereqs: string | undefined,
    parentName: string,
    lo: number,
    hi = lo,
    scope = WR_DEFAULT,
  ) => {
    const parent = lookup(parentName);
    add({
      kind: "subfield",
      name,
      width: hi - lo + 1,
      prereqs,
      level: parent.level,
      rw: parent.rw ? scope : 0,
      parent,
      parentOfs: lo,
    });
  };
  const predicate = (name: string, expansion: string, level: Level = "boolean") => {
    add({ kind: "predicate", name, width: 1, prereqs: undefined, level, rw: 0, expansion });
  };

  for (const [name, reg] of [
    ["inport", "reg14"],
    ["outport", "reg15"],
  ] as const) {
    add({
      kind: "string",
      name,
      width: 0,
      prereqs: undefined,
      level: "nominal",
      rw: WR_DEFAULT,
      field: mfField(reg),
    });
  }
  // MFF_N_LOG_REGS is 10: xxreg0-1 hold reg0-7, xreg0-3 are their halves, xreg4 holds reg8-9.
  for (let xx = 0; xx < 2; xx++) field(`xxreg${xx}`, `xxreg${xx}`);
  for (let x = 0; x < 5; x++) {
    if (x < 4)
      subfield(
        `xreg${x}`,
        undefined,
        `xxreg${Math.floor(x / 2)}`,
        64 * (1 - (x % 2)),
        64 * (1 - (x % 2)) + 63,
      );
    else field(`xreg${x}`, `xreg${x}`);
  }
  for (let i = 0; i < 10; i++) {
    if (i < 8) {
      const lo = 32 * (3 - (i % 4));
      subfield(`reg${i}`, undefined, `xxreg${Math.floor(i / 4)}`, lo, lo + 31);
    } else {
      const lo = 32 * (1 - (i % 2));
      subfield(`reg${i}`, undefined, `xreg${Math.floor(i / 2)}`, lo, lo + 31);
    }
  }
  field("flags", "reg10");
  subfield("flags.loopback", undefined, "flags", 0);
  subfield("flags.force_snat_for_dnat", undefined, "flags", 2);
  subfield("flags.force_snat_for_lb", undefined, "flags", 3);
  subfield("flags.skip_snat_for_lb", undefined, "flags", 9);
  subfield("flags.use_snat_zone", undefined, "flags", 11);

  field("ct_mark", "ct_mark", undefined, WR_CT_COMMIT);
  subfield("ct_mark.blocked", undefined, "ct_mark", 0, 0, WR_CT_COMMIT);
  subfield("ct_mark.natted", undefined, "ct_mark", 1, 1, WR_CT_COMMIT);
  subfield("ct_mark.ecmp_reply_port", undefined, "ct_mark", 16, 31, WR_CT_COMMIT);
  subfield("ct_mark.skip_snat", undefined, "ct_mark", 2, 2, WR_CT_COMMIT);
  subfield("ct_mark.force_snat", undefined, "ct_mark", 3, 3, WR_CT_COMMIT);
  field("ct_label", "ct_label", undefined, WR_CT_COMMIT);
  subfield("ct_label.blocked", undefined, "ct_label", 0, 0, WR_CT_COMMIT);
  subfield("ct_label.natted", undefined, "ct_label", 1, 1, WR_CT_COMMIT);
  subfield("ct_label.ecmp_reply_eth", undefined, "ct_label", 32, 79, WR_CT_COMMIT);
  subfield("ct_label.ecmp_reply_port", undefined, "ct_label", 80, 95, WR_CT_COMMIT);
  subfield("ct_label.label", undefined, "ct_label", 96, 127, WR_CT_COMMIT);
  subfield("ct_label.skip_snat", undefined, "ct_label", 2, 2, WR_CT_COMMIT);
  subfield("ct_label.force_snat", undefined, "ct_label", 3, 3, WR_CT_COMMIT);

  field("ct_state", "ct_state");
  ctStateNames.forEach((name, bit) => {
    subfield(`ct.${name}`, name === "trk" ? undefined : "ct.trk", "ct_state", bit);
  });

  field("eth.src", "eth_src");
  field("eth.dst", "eth_dst");
  field("eth.type", "eth_type");
  predicate("eth.bcast", "eth.dst == ff:ff:ff:ff:ff:ff");
  subfield("eth.mcast", undefined, "eth.dst", 40);
  predicate("eth.mcastv6", "eth.dst[32..47] == 0x3333");

  field("vlan.tci", "vlan_tci");
  predicate("vlan.present", "vlan.tci[12]");
  subfield("vlan.pcp", "vlan.present", "vlan.tci", 13, 15);
  subfield("vlan.vid", "vlan.present", "vlan.tci", 0, 11);

  predicate("ip4", "eth.type == 0x800", "nominal");
  predicate("ip6", "eth.type == 0x86dd", "nominal");
  predicate("ip", "ip4 || ip6", "nominal");
  field("ip.proto", "ip_proto", "ip");
  field("ip.dscp", "ip_dscp", "ip");
  field("ip.ecn", "nw_ecn", "ip");
  field("ip.ttl", "nw_ttl", "ip");

  field("ip4.src", "ip_src", "ip4");
  field("ip4.dst", "ip_dst", "ip4");
  predicate("ip4.src_mcast", "ip4.src[28..31] == 0xe");
  predicate("ip4.mcast", "eth.mcast && ip4.dst[28..31] == 0xe");

  predicate("icmp4", "ip4 && ip.proto == 1", "nominal");
  field("icmp4.type", "icmp_type", "icmp4");
  field("icmp4.code", "icmp_code", "icmp4");
  predicate("igmp", "ip4 && ip.proto == 2", "nominal");

  field("ip6.src", "ipv6_src", "ip6");
  field("ip6.dst", "ipv6_dst", "ip6");
  field("ip6.label", "ipv6_label", "ip6");
  predicate("ip6.mcast_rsvd", "ip6.dst[116..127] == 0xff0 && ip6.dst[0..111] == 0x0");
  predicate("ip6.mcast_all_nodes", "ip6.dst == ff01::1 || ip6.dst == ff02::1");
  predicate("ip6.mcast_all_rtrs", "ip6.dst == ff01::2 || ip6.dst == ff02::2 || ip6.dst == ff05::2");
  predicate("ip6.mcast_sol_node", "ip6.dst == ff02::1:ff00:0000/104");
  predicate(
    "ip6.mcast_flood",
    "eth.mcastv6 && (ip6.mcast_rsvd || ip6.mcast_all_nodes || ip6.mcast_all_rtrs || ip6.mcast_sol_node)",
  );
  predicate("ip6.mcast", "eth.mcastv6 && ip6.dst[120..127] == 0xff");

  predicate("icmp6", "ip6 && ip.proto == 58", "nominal");
  field("icmp6.type", "icmpv6_type", "icmp6");
  field("icmp6.code", "icmpv6_code", "icmp6");
  predicate("icmp", "icmp4 || icmp6", "nominal");

  field("ip.frag", "ip_frag", "ip");
  predicate("ip.is_frag", "ip.frag[0]");
  predicate("ip.later_frag", "ip.frag[1]");
  predicate("ip.first_frag", "ip.is_frag && !ip.later_frag");

  predicate("arp", "eth.type == 0x806", "nominal");
  for (const [ovn, mf] of [
    ["op", "arp_op"],
    ["spa", "arp_spa"],
    ["sha", "arp_sha"],
    ["tpa", "arp_tpa"],
    ["tha", "arp_tha"],
  ] as const)
    field(`arp.${ovn}`, mf, "arp");
  predicate("rarp", "eth.type == 0x8035", "nominal");
  for (const [ovn, mf] of [
    ["op", "arp_op"],
    ["spa", "arp_spa"],
    ["sha", "arp_sha"],
    ["tpa", "arp_tpa"],
    ["tha", "arp_tha"],
  ] as const)
    field(`rarp.${ovn}`, mf, "rarp");

  predicate("nd", "icmp6.type == {135, 136} && icmp6.code == 0 && ip.ttl == 255", "nominal");
  predicate("nd_ns", "icmp6.type == 135 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  predicate("nd_na", "icmp6.type == 136 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  predicate("nd_rs", "icmp6.type == 133 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  predicate("nd_ra", "icmp6.type == 134 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  field("nd.target", "nd_target", "nd");
  field("nd.sll", "nd_sll", "nd_ns");
  field("nd.tll", "nd_tll", "nd_na");
  predicate("mldv1", "ip6.src == fe80::/10 && icmp6.type == {130, 131, 132}", "nominal");
  predicate("mldv2", "ip6.dst == ff02::16 && icmp6.type == 143", "nominal");

  predicate("tcp", "ip.proto == 6", "nominal");
  field("tcp.src", "tcp_src", "tcp");
  field("tcp.dst", "tcp_dst", "tcp");
  field("tcp.flags", "tcp_flags", "tcp");
  predicate("udp", "ip.proto == 17", "nominal");
  field("udp.src", "udp_src", "udp");
  field("udp.dst", "udp_dst", "udp");
  predicate("sctp", "ip.proto == 132", "nominal");
  field("sctp.src", "sctp_src", "sctp");
  field("sctp.dst", "sctp_dst", "sctp");
  field("pkt.mark", "pkt_mark");

  for (const [name, nBytes, bits] of [
    ["icmp4.frag_mtu", 2, 16],
    ["icmp6.frag_mtu", 4, 32],
  ] as const) {
    add({
      kind: "ovn_field",
      name,
      width: bits,
      prereqs: undefined,
      level: "nominal",
      rw: 0xffffffff,
      nBytes,
    });
  }
  return table;
}

export const symtab: SymbolTable = build();

/** The OpenFlow field and bit offset a symbol finally names (expr_resolve_field). */
export function resolveSymbol(symbol: OvnSymbol): { field: MfField; ofs: number } | undefined {
  let ofs = 0;
  let s = symbol;
  while (s.kind === "subfield") {
    ofs += s.parentOfs;
    s = s.parent;
  }
  return s.kind === "field" || s.kind === "string" ? { field: s.field, ofs } : undefined;
}
