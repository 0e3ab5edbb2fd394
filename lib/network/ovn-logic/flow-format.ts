/**
 * A microflow in OVS's `flow_format` text (the first line of an ovn-trace: `# tcp,reg14=0x1,...`),
 * for the fields a logical trace can set. Zero registers, metadata and conntrack fields are left out,
 * as OVS does for packets.
 */
import { formatIpv4, formatIpv6, formatMac } from "./addresses.ts";
import {
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  ETH_TYPE_IPV6,
  ETH_TYPE_RARP,
  type Flow,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
  IPPROTO_UDP,
} from "./flow.ts";
import { ctStateNames } from "./symbols.ts";

export function formatCtState(state: bigint): string {
  const names = ctStateNames.filter((_, bit) => (state >> BigInt(bit)) & 1n);
  return names.length === 0 ? "0" : names.join("|");
}

const tcpFlagNames = ["fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr", "ns"];

export function formatFlow(flow: Flow): string {
  const f = flow.f;
  const out: string[] = [];
  const t = f.dl_type;
  const proto = f.nw_proto;
  if (f.pkt_mark) out.push(`pkt_mark=0x${f.pkt_mark.toString(16)}`);
  if (f.ct_state) out.push(`ct_state=${formatCtState(f.ct_state)}`);
  if (f.ct_mark) out.push(`ct_mark=0x${f.ct_mark.toString(16)}`);
  if (f.ct_label) out.push(`ct_label=0x${f.ct_label.toString(16)}`);
  let skipType = true;
  let skipProto = false;
  if (t === ETH_TYPE_IP) {
    const name =
      proto === IPPROTO_ICMP
        ? "icmp"
        : proto === IPPROTO_TCP
          ? "tcp"
          : proto === IPPROTO_UDP
            ? "udp"
            : proto === IPPROTO_SCTP
              ? "sctp"
              : undefined;
    out.push(name ?? "ip");
    skipProto = name !== undefined;
  } else if (t === ETH_TYPE_IPV6) {
    const name =
      proto === IPPROTO_ICMPV6
        ? "icmp6"
        : proto === IPPROTO_TCP
          ? "tcp6"
          : proto === IPPROTO_UDP
            ? "udp6"
            : proto === IPPROTO_SCTP
              ? "sctp6"
              : undefined;
    out.push(name ?? "ipv6");
    skipProto = name !== undefined;
  } else if (t === ETH_TYPE_ARP) out.push("arp");
  else if (t === ETH_TYPE_RARP) out.push("rarp");
  else skipType = false;
  flow.regs.forEach((r, i) => {
    if (r) out.push(`reg${i}=0x${r.toString(16)}`);
  });
  if (f.metadata) out.push(`metadata=0x${f.metadata.toString(16)}`);
  out.push(`vlan_tci=0x${f.vlan_tci.toString(16).padStart(4, "0")}`);
  out.push(`dl_src=${formatMac(f.dl_src)}`, `dl_dst=${formatMac(f.dl_dst)}`);
  if (!skipType) out.push(`dl_type=0x${t.toString(16).padStart(4, "0")}`);
  const isArp = t === ETH_TYPE_ARP || t === ETH_TYPE_RARP;
  if (t === ETH_TYPE_IPV6) {
    out.push(`ipv6_src=${formatIpv6(f.ipv6_src)}`, `ipv6_dst=${formatIpv6(f.ipv6_dst)}`);
    out.push(`ipv6_label=0x${f.ipv6_label.toString(16).padStart(5, "0")}`);
  } else if (isArp) {
    out.push(`arp_spa=${formatIpv4(f.nw_src)}`, `arp_tpa=${formatIpv4(f.nw_dst)}`);
  } else if (t === ETH_TYPE_IP) {
    out.push(`nw_src=${formatIpv4(f.nw_src)}`, `nw_dst=${formatIpv4(f.nw_dst)}`);
  }
  if (isArp) {
    out.push(`arp_op=${proto}`, `arp_sha=${formatMac(f.arp_sha)}`, `arp_tha=${formatMac(f.arp_tha)}`);
    return out.join(",");
  }
  if (t !== ETH_TYPE_IP && t !== ETH_TYPE_IPV6) return out.join(",");
  if (!skipProto) out.push(`nw_proto=${proto}`);
  out.push(`nw_tos=${f.nw_tos & 0xfcn}`, `nw_ecn=${f.nw_tos & 3n}`, `nw_ttl=${f.nw_ttl}`);
  const frag = f.nw_frag & 1n ? (f.nw_frag & 2n ? "later" : "first") : f.nw_frag & 2n ? "<error>" : "no";
  out.push(`nw_frag=${frag}`);
  const later = (f.nw_frag & 2n) !== 0n;
  const transport = [IPPROTO_ICMP, IPPROTO_ICMPV6, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, 2n].includes(
    proto,
  );
  if (!later && transport) {
    if (t === ETH_TYPE_IP && proto === IPPROTO_ICMP)
      out.push(`icmp_type=${f.tp_src}`, `icmp_code=${f.tp_dst}`);
    else if (t === ETH_TYPE_IPV6 && proto === IPPROTO_ICMPV6) {
      out.push(`icmp_type=${f.tp_src}`, `icmp_code=${f.tp_dst}`);
      const nd = f.tp_dst === 0n && (f.tp_src === 135n || f.tp_src === 136n);
      if (nd)
        out.push(
          `nd_target=${formatIpv6(f.nd_target)}`,
          `nd_sll=${formatMac(f.arp_sha)}`,
          `nd_tll=${formatMac(f.arp_tha)}`,
        );
    } else out.push(`tp_src=${f.tp_src}`, `tp_dst=${f.tp_dst}`);
    if (proto === IPPROTO_TCP) {
      const flags = tcpFlagNames.filter((_, bit) => (f.tcp_flags >> BigInt(bit)) & 1n);
      out.push(`tcp_flags=${flags.length === 0 ? "0" : flags.join("|")}`);
    }
  }
  return out.join(",");
}
