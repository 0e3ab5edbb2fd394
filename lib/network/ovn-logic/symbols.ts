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

/** The table under construction, with ovn_init_symtab's helpers (`expr_symtab_add_*`). */
class SymbolTableBuilder {
  readonly table = new Map<string, OvnSymbol>();

  add(symbol: OvnSymbol): void {
    this.table.set(symbol.name, symbol);
  }

  private lookup(name: string): OvnSymbol {
    const s = this.table.get(name);
    if (s === undefined) throw new Error(`symbol ${name} used before it is defined`);
    return s;
  }

  field(name: string, mf: string, prereqs?: string, scope = WR_DEFAULT): void {
    const f = mfField(mf);
    this.add({
      kind: "field",
      name,
      width: f.nBits,
      prereqs,
      level: f.maskable ? "ordinal" : "nominal",
      rw: f.writable ? scope : 0,
      field: f,
    });
  }

  subfield(
    name: string,
    prereqs: string | undefined,
    parentName: string,
    lo: number,
    hi = lo,
    scope = WR_DEFAULT,
  ) {
    const parent = this.lookup(parentName);
    this.add({
      kind: "subfield",
      name,
      width: hi - lo + 1,
      prereqs,
      level: parent.level,
      rw: parent.rw ? scope : 0,
      parent,
      parentOfs: lo,
    });
  }

  predicate(name: string, expansion: string, level: Level = "boolean"): void {
    this.add({ kind: "predicate", name, width: 1, prereqs: undefined, level, rw: 0, expansion });
  }
}

/** The logical ports, the registers and the flags. */
function addRegisters(b: SymbolTableBuilder): void {
  for (const [name, reg] of [
    ["inport", "reg14"],
    ["outport", "reg15"],
  ] as const) {
    b.add({
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
  for (let xx = 0; xx < 2; xx++) b.field(`xxreg${xx}`, `xxreg${xx}`);
  for (let x = 0; x < 5; x++) {
    if (x < 4)
      b.subfield(
        `xreg${x}`,
        undefined,
        `xxreg${Math.floor(x / 2)}`,
        64 * (1 - (x % 2)),
        64 * (1 - (x % 2)) + 63,
      );
    else b.field(`xreg${x}`, `xreg${x}`);
  }
  for (let i = 0; i < 10; i++) {
    if (i < 8) {
      const lo = 32 * (3 - (i % 4));
      b.subfield(`reg${i}`, undefined, `xxreg${Math.floor(i / 4)}`, lo, lo + 31);
    } else {
      const lo = 32 * (1 - (i % 2));
      b.subfield(`reg${i}`, undefined, `xreg${Math.floor(i / 2)}`, lo, lo + 31);
    }
  }
  b.field("flags", "reg10");
  b.subfield("flags.loopback", undefined, "flags", 0);
  b.subfield("flags.force_snat_for_dnat", undefined, "flags", 2);
  b.subfield("flags.force_snat_for_lb", undefined, "flags", 3);
  b.subfield("flags.skip_snat_for_lb", undefined, "flags", 9);
  b.subfield("flags.use_snat_zone", undefined, "flags", 11);
}

/** Connection tracking: the mark and label (written only inside `ct_commit { }`) and the state bits. */
function addConntrack(b: SymbolTableBuilder): void {
  b.field("ct_mark", "ct_mark", undefined, WR_CT_COMMIT);
  b.subfield("ct_mark.blocked", undefined, "ct_mark", 0, 0, WR_CT_COMMIT);
  b.subfield("ct_mark.natted", undefined, "ct_mark", 1, 1, WR_CT_COMMIT);
  b.subfield("ct_mark.ecmp_reply_port", undefined, "ct_mark", 16, 31, WR_CT_COMMIT);
  b.subfield("ct_mark.skip_snat", undefined, "ct_mark", 2, 2, WR_CT_COMMIT);
  b.subfield("ct_mark.force_snat", undefined, "ct_mark", 3, 3, WR_CT_COMMIT);
  b.field("ct_label", "ct_label", undefined, WR_CT_COMMIT);
  b.subfield("ct_label.blocked", undefined, "ct_label", 0, 0, WR_CT_COMMIT);
  b.subfield("ct_label.natted", undefined, "ct_label", 1, 1, WR_CT_COMMIT);
  b.subfield("ct_label.ecmp_reply_eth", undefined, "ct_label", 32, 79, WR_CT_COMMIT);
  b.subfield("ct_label.ecmp_reply_port", undefined, "ct_label", 80, 95, WR_CT_COMMIT);
  b.subfield("ct_label.label", undefined, "ct_label", 96, 127, WR_CT_COMMIT);
  b.subfield("ct_label.skip_snat", undefined, "ct_label", 2, 2, WR_CT_COMMIT);
  b.subfield("ct_label.force_snat", undefined, "ct_label", 3, 3, WR_CT_COMMIT);

  b.field("ct_state", "ct_state");
  ctStateNames.forEach((name, bit) => {
    b.subfield(`ct.${name}`, name === "trk" ? undefined : "ct.trk", "ct_state", bit);
  });
}

/** Ethernet, VLAN, IPv4 and IPv6, ICMP. */
function addNetwork(b: SymbolTableBuilder): void {
  b.field("eth.src", "eth_src");
  b.field("eth.dst", "eth_dst");
  b.field("eth.type", "eth_type");
  b.predicate("eth.bcast", "eth.dst == ff:ff:ff:ff:ff:ff");
  b.subfield("eth.mcast", undefined, "eth.dst", 40);
  b.predicate("eth.mcastv6", "eth.dst[32..47] == 0x3333");

  b.field("vlan.tci", "vlan_tci");
  b.predicate("vlan.present", "vlan.tci[12]");
  b.subfield("vlan.pcp", "vlan.present", "vlan.tci", 13, 15);
  b.subfield("vlan.vid", "vlan.present", "vlan.tci", 0, 11);

  b.predicate("ip4", "eth.type == 0x800", "nominal");
  b.predicate("ip6", "eth.type == 0x86dd", "nominal");
  b.predicate("ip", "ip4 || ip6", "nominal");
  b.field("ip.proto", "ip_proto", "ip");
  b.field("ip.dscp", "ip_dscp", "ip");
  b.field("ip.ecn", "nw_ecn", "ip");
  b.field("ip.ttl", "nw_ttl", "ip");

  b.field("ip4.src", "ip_src", "ip4");
  b.field("ip4.dst", "ip_dst", "ip4");
  b.predicate("ip4.src_mcast", "ip4.src[28..31] == 0xe");
  b.predicate("ip4.mcast", "eth.mcast && ip4.dst[28..31] == 0xe");

  b.predicate("icmp4", "ip4 && ip.proto == 1", "nominal");
  b.field("icmp4.type", "icmp_type", "icmp4");
  b.field("icmp4.code", "icmp_code", "icmp4");
  b.predicate("igmp", "ip4 && ip.proto == 2", "nominal");

  b.field("ip6.src", "ipv6_src", "ip6");
  b.field("ip6.dst", "ipv6_dst", "ip6");
  b.field("ip6.label", "ipv6_label", "ip6");
  b.predicate("ip6.mcast_rsvd", "ip6.dst[116..127] == 0xff0 && ip6.dst[0..111] == 0x0");
  b.predicate("ip6.mcast_all_nodes", "ip6.dst == ff01::1 || ip6.dst == ff02::1");
  b.predicate("ip6.mcast_all_rtrs", "ip6.dst == ff01::2 || ip6.dst == ff02::2 || ip6.dst == ff05::2");
  b.predicate("ip6.mcast_sol_node", "ip6.dst == ff02::1:ff00:0000/104");
  b.predicate(
    "ip6.mcast_flood",
    "eth.mcastv6 && (ip6.mcast_rsvd || ip6.mcast_all_nodes || ip6.mcast_all_rtrs || ip6.mcast_sol_node)",
  );
  b.predicate("ip6.mcast", "eth.mcastv6 && ip6.dst[120..127] == 0xff");

  b.predicate("icmp6", "ip6 && ip.proto == 58", "nominal");
  b.field("icmp6.type", "icmpv6_type", "icmp6");
  b.field("icmp6.code", "icmpv6_code", "icmp6");
  b.predicate("icmp", "icmp4 || icmp6", "nominal");
}

/** Fragments, ARP, ND, MLD, TCP, UDP, SCTP, the packet mark and the OVN-only fields. */
function addTransport(b: SymbolTableBuilder): void {
  b.field("ip.frag", "ip_frag", "ip");
  b.predicate("ip.is_frag", "ip.frag[0]");
  b.predicate("ip.later_frag", "ip.frag[1]");
  b.predicate("ip.first_frag", "ip.is_frag && !ip.later_frag");

  // ARP and RARP name the same OpenFlow fields, each under its own prefix and predicate.
  for (const [proto, ethType] of [
    ["arp", "0x806"],
    ["rarp", "0x8035"],
  ] as const) {
    b.predicate(proto, `eth.type == ${ethType}`, "nominal");
    for (const member of ["op", "spa", "sha", "tpa", "tha"] as const)
      b.field(`${proto}.${member}`, `arp_${member}`, proto);
  }

  b.predicate("nd", "icmp6.type == {135, 136} && icmp6.code == 0 && ip.ttl == 255", "nominal");
  b.predicate("nd_ns", "icmp6.type == 135 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  b.predicate("nd_na", "icmp6.type == 136 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  b.predicate("nd_rs", "icmp6.type == 133 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  b.predicate("nd_ra", "icmp6.type == 134 && icmp6.code == 0 && ip.ttl == 255", "nominal");
  b.field("nd.target", "nd_target", "nd");
  b.field("nd.sll", "nd_sll", "nd_ns");
  b.field("nd.tll", "nd_tll", "nd_na");
  b.predicate("mldv1", "ip6.src == fe80::/10 && icmp6.type == {130, 131, 132}", "nominal");
  b.predicate("mldv2", "ip6.dst == ff02::16 && icmp6.type == 143", "nominal");

  b.predicate("tcp", "ip.proto == 6", "nominal");
  b.field("tcp.src", "tcp_src", "tcp");
  b.field("tcp.dst", "tcp_dst", "tcp");
  b.field("tcp.flags", "tcp_flags", "tcp");
  b.predicate("udp", "ip.proto == 17", "nominal");
  b.field("udp.src", "udp_src", "udp");
  b.field("udp.dst", "udp_dst", "udp");
  b.predicate("sctp", "ip.proto == 132", "nominal");
  b.field("sctp.src", "sctp_src", "sctp");
  b.field("sctp.dst", "sctp_dst", "sctp");
  b.field("pkt.mark", "pkt_mark");

  for (const [name, nBytes, bits] of [
    ["icmp4.frag_mtu", 2, 16],
    ["icmp6.frag_mtu", 4, 32],
  ] as const) {
    b.add({
      kind: "ovn_field",
      name,
      width: bits,
      prereqs: undefined,
      level: "nominal",
      rw: 0xffffffff,
      nBytes,
    });
  }
}

function build(): Map<string, OvnSymbol> {
  const b = new SymbolTableBuilder();
  addRegisters(b);
  addConntrack(b);
  addNetwork(b);
  addTransport(b);
  return b.table;
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
