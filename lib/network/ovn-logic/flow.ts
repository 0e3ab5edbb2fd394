/**
 * A microflow: the header and metadata fields of one packet as OVS's `struct flow` holds them, and the
 * OpenFlow fields (`mf_field`) over it. Several OpenFlow fields share storage, exactly as in OVS: the
 * IPv4 addresses are also the ARP protocol addresses, the transport ports are also the ICMP type and
 * code, the ARP hardware addresses are also the ND link-layer addresses, and the ARP opcode is the IP
 * protocol byte. Values are bigints; every member is present (0 when unset).
 */

const flowMembers = [
  "metadata",
  "dl_src",
  "dl_dst",
  "dl_type",
  "vlan_tci",
  "nw_src",
  "nw_dst",
  "ipv6_src",
  "ipv6_dst",
  "ipv6_label",
  "nd_target",
  "nw_proto",
  "nw_tos",
  "nw_ttl",
  "nw_frag",
  "arp_sha",
  "arp_tha",
  "tp_src",
  "tp_dst",
  "tcp_flags",
  "ct_state",
  "ct_mark",
  "ct_label",
  "ct_nw_dst",
  "ct_ipv6_dst",
  "ct_tp_dst",
  "pkt_mark",
] as const;

export type FlowMember = (typeof flowMembers)[number];

export interface Flow {
  /** The sixteen 32-bit registers; OVN's logical inport is reg14, outport reg15, flags reg10. */
  regs: bigint[];
  f: Record<FlowMember, bigint>;
}

/** The registers OVN keeps the logical inport, outport and flags in. */
export const REG_INPORT = 14;
export const REG_OUTPORT = 15;
export const REG_FLAGS = 10;

export function emptyFlow(): Flow {
  const f = {} as Record<FlowMember, bigint>;
  for (const m of flowMembers) f[m] = 0n;
  return { regs: new Array<bigint>(16).fill(0n), f };
}

export function cloneFlow(flow: Flow): Flow {
  return { regs: [...flow.regs], f: { ...flow.f } };
}

export const ETH_TYPE_IP = 0x0800n;
export const ETH_TYPE_IPV6 = 0x86ddn;
export const ETH_TYPE_ARP = 0x0806n;
export const ETH_TYPE_RARP = 0x8035n;
export const IPPROTO_ICMP = 1n;
export const IPPROTO_TCP = 6n;
export const IPPROTO_UDP = 17n;
export const IPPROTO_ICMPV6 = 58n;
export const IPPROTO_SCTP = 132n;
const FRAG_LATER = 2n;

export const isIpAny = (flow: Flow) => flow.f.dl_type === ETH_TYPE_IP || flow.f.dl_type === ETH_TYPE_IPV6;
const isIcmp6 = (flow: Flow) => flow.f.dl_type === ETH_TYPE_IPV6 && flow.f.nw_proto === IPPROTO_ICMPV6;
const isNd = (flow: Flow) =>
  isIcmp6(flow) && flow.f.tp_dst === 0n && (flow.f.tp_src === 135n || flow.f.tp_src === 136n);

/** OVS's field prerequisites (mf_are_prereqs_ok): a set-field whose prerequisites fail is skipped. */
type Prereq =
  | "none"
  | "arp"
  | "ipv4"
  | "ipv6"
  | "ip_any"
  | "tcp"
  | "udp"
  | "sctp"
  | "icmpv4"
  | "icmpv6"
  | "nd"
  | "nd_solicit"
  | "nd_advert";

export function prereqsOk(prereq: Prereq, flow: Flow): boolean {
  const t = flow.f.dl_type;
  const proto = flow.f.nw_proto;
  const notLater = (flow.f.nw_frag & FRAG_LATER) === 0n;
  switch (prereq) {
    case "none":
      return true;
    case "arp":
      return t === ETH_TYPE_ARP || t === ETH_TYPE_RARP;
    case "ipv4":
      return t === ETH_TYPE_IP;
    case "ipv6":
      return t === ETH_TYPE_IPV6;
    case "ip_any":
      return isIpAny(flow);
    case "tcp":
      return isIpAny(flow) && proto === IPPROTO_TCP && notLater;
    case "udp":
      return isIpAny(flow) && proto === IPPROTO_UDP && notLater;
    case "sctp":
      return isIpAny(flow) && proto === IPPROTO_SCTP && notLater;
    case "icmpv4":
      return t === ETH_TYPE_IP && proto === IPPROTO_ICMP;
    case "icmpv6":
      return isIcmp6(flow);
    case "nd":
      return isNd(flow);
    case "nd_solicit":
      return isNd(flow) && flow.f.tp_src === 135n;
    case "nd_advert":
      return isNd(flow) && flow.f.tp_src === 136n;
  }
}

/** How `mf_format` prints a value of the field (used for the modifications a trace summarises). */
type ValueStyle = "decimal" | "hex" | "mac" | "ipv4" | "ipv6";

export interface MfField {
  /** The OVS name, e.g. `reg14`, `eth_src`, `ip_dst`. */
  name: string;
  nBits: number;
  /** Fully bitwise-maskable fields are ordinal in OVN's expression language; the rest nominal. */
  maskable: boolean;
  writable: boolean;
  prereq: Prereq;
  style: ValueStyle;
  get(flow: Flow): bigint;
  set(flow: Flow, value: bigint): void;
}

const ones = (n: number) => (1n << BigInt(n)) - 1n;

function member(
  name: string,
  m: FlowMember,
  nBits: number,
  options: { maskable?: boolean; writable?: boolean; prereq?: Prereq; style?: ValueStyle } = {},
): MfField {
  const mask = ones(nBits);
  return {
    name,
    nBits,
    maskable: options.maskable ?? true,
    writable: options.writable ?? true,
    prereq: options.prereq ?? "none",
    style: options.style ?? "decimal",
    get: (flow) => flow.f[m] & mask,
    set: (flow, value) => {
      flow.f[m] = value & mask;
    },
  };
}

/** `reg<first>` .. `reg<first+count-1>` as one big-endian field (reg, xreg, xxreg). */
function registers(name: string, first: number, count: number): MfField {
  return {
    name,
    nBits: 32 * count,
    maskable: true,
    writable: true,
    prereq: "none",
    style: "hex",
    get: (flow) => {
      let v = 0n;
      for (let i = 0; i < count; i++) v = (v << 32n) | (flow.regs[first + i] ?? 0n);
      return v;
    },
    set: (flow, value) => {
      for (let i = count - 1, v = value; i >= 0; i--, v >>= 32n) flow.regs[first + i] = v & 0xffffffffn;
    },
  };
}

function build(): Map<string, MfField> {
  const fields: MfField[] = [];
  for (let i = 0; i < 16; i++) fields.push(registers(`reg${i}`, i, 1));
  for (let i = 0; i < 8; i++) fields.push(registers(`xreg${i}`, 2 * i, 2));
  for (let i = 0; i < 4; i++) fields.push(registers(`xxreg${i}`, 4 * i, 4));
  fields.push(
    member("metadata", "metadata", 64, { style: "hex" }),
    member("pkt_mark", "pkt_mark", 32, { style: "hex" }),
    member("ct_state", "ct_state", 32, { writable: false, style: "hex" }),
    member("ct_mark", "ct_mark", 32, { style: "hex" }),
    member("ct_label", "ct_label", 128, { style: "hex" }),
    member("eth_src", "dl_src", 48, { style: "mac" }),
    member("eth_dst", "dl_dst", 48, { style: "mac" }),
    member("eth_type", "dl_type", 16, { maskable: false, writable: false, style: "hex" }),
    member("vlan_tci", "vlan_tci", 16, { style: "hex" }),
    member("ip_proto", "nw_proto", 8, { maskable: false, writable: false, prereq: "ip_any" }),
    {
      name: "ip_dscp",
      nBits: 6,
      maskable: false,
      writable: true,
      prereq: "ip_any",
      style: "decimal",
      get: (flow) => flow.f.nw_tos >> 2n,
      set: (flow, value) => {
        flow.f.nw_tos = (flow.f.nw_tos & 3n) | ((value & 0x3fn) << 2n);
      },
    },
    {
      name: "nw_ecn",
      nBits: 2,
      maskable: false,
      writable: true,
      prereq: "ip_any",
      style: "decimal",
      get: (flow) => flow.f.nw_tos & 3n,
      set: (flow, value) => {
        flow.f.nw_tos = (flow.f.nw_tos & 0xfcn) | (value & 3n);
      },
    },
    member("nw_ttl", "nw_ttl", 8, { maskable: false, prereq: "ip_any" }),
    member("ip_frag", "nw_frag", 2, { writable: false, prereq: "ip_any", style: "hex" }),
    member("ip_src", "nw_src", 32, { prereq: "ipv4", style: "ipv4" }),
    member("ip_dst", "nw_dst", 32, { prereq: "ipv4", style: "ipv4" }),
    member("ipv6_src", "ipv6_src", 128, { prereq: "ipv6", style: "ipv6" }),
    member("ipv6_dst", "ipv6_dst", 128, { prereq: "ipv6", style: "ipv6" }),
    member("ipv6_label", "ipv6_label", 20, { prereq: "ipv6", style: "hex" }),
    member("icmp_type", "tp_src", 8, { maskable: false, prereq: "icmpv4" }),
    member("icmp_code", "tp_dst", 8, { maskable: false, prereq: "icmpv4" }),
    member("icmpv6_type", "tp_src", 8, { maskable: false, prereq: "icmpv6" }),
    member("icmpv6_code", "tp_dst", 8, { maskable: false, prereq: "icmpv6" }),
    member("arp_op", "nw_proto", 16, { maskable: false, prereq: "arp" }),
    member("arp_spa", "nw_src", 32, { prereq: "arp", style: "ipv4" }),
    member("arp_tpa", "nw_dst", 32, { prereq: "arp", style: "ipv4" }),
    member("arp_sha", "arp_sha", 48, { prereq: "arp", style: "mac" }),
    member("arp_tha", "arp_tha", 48, { prereq: "arp", style: "mac" }),
    member("nd_target", "nd_target", 128, { prereq: "nd", style: "ipv6" }),
    member("nd_sll", "arp_sha", 48, { prereq: "nd_solicit", style: "mac" }),
    member("nd_tll", "arp_tha", 48, { prereq: "nd_advert", style: "mac" }),
    member("tcp_src", "tp_src", 16, { prereq: "tcp" }),
    member("tcp_dst", "tp_dst", 16, { prereq: "tcp" }),
    member("tcp_flags", "tcp_flags", 12, { writable: false, prereq: "tcp", style: "hex" }),
    member("udp_src", "tp_src", 16, { prereq: "udp" }),
    member("udp_dst", "tp_dst", 16, { prereq: "udp" }),
    member("sctp_src", "tp_src", 16, { prereq: "sctp" }),
    member("sctp_dst", "tp_dst", 16, { prereq: "sctp" }),
  );
  return new Map(fields.map((f) => [f.name, f]));
}

const mfFields: ReadonlyMap<string, MfField> = build();

export function mfField(name: string): MfField {
  const field = mfFields.get(name);
  if (field === undefined) throw new Error(`no OpenFlow field ${name}`);
  return field;
}

/** Reads bits [ofs, ofs+nBits) of a field. */
export function getSubfield(flow: Flow, field: MfField, ofs: number, nBits: number): bigint {
  return (field.get(flow) >> BigInt(ofs)) & ones(nBits);
}

/** Writes bits [ofs, ofs+nBits) of a field, leaving its other bits alone. */
export function setSubfield(flow: Flow, field: MfField, ofs: number, nBits: number, value: bigint): void {
  const mask = ones(nBits) << BigInt(ofs);
  field.set(flow, (field.get(flow) & ~mask) | ((value << BigInt(ofs)) & mask));
}
