/**
 * The packet a nested action (`clone { }`, `arp { }`, `icmp4 { }`, `tcp_reset { }`, `nd_na { }`,
 * `reject { }`, ...) hands to its inner actions, derived from the packet that reached it as ovn-trace
 * derives it (utilities/ovn-trace.c, `execute_*`): addresses swapped for a reply, the protocol and
 * type set, TTL 255. `reject` answers a TCP packet with a reset, SCTP with an abort and the rest with
 * an ICMP error, and, as ovn-trace, does not answer an answer of its own kind.
 */
import type { NestedName } from "./action.ts";
import {
  cloneFlow,
  ETH_TYPE_ARP,
  ETH_TYPE_IP,
  type Flow,
  type FlowMember,
  IPPROTO_ICMP,
  IPPROTO_ICMPV6,
  IPPROTO_SCTP,
  IPPROTO_TCP,
} from "./flow.ts";

type Fields = Record<FlowMember, bigint>;

/** The label of the transformation node and the packet the inner actions run on; none for a no-op. */
interface NestedPacket {
  label: string;
  flow: Flow;
}

/** Addresses kept (a new packet to the same destination) or swapped (a reply, `loopback`). */
function swap(f: Fields, d: Fields, loopback: boolean, v6: boolean): void {
  d.dl_dst = loopback ? f.dl_src : f.dl_dst;
  d.dl_src = loopback ? f.dl_dst : f.dl_src;
  if (v6) {
    d.ipv6_dst = loopback ? f.ipv6_src : f.ipv6_dst;
    d.ipv6_src = loopback ? f.ipv6_dst : f.ipv6_src;
  } else {
    d.nw_dst = loopback ? f.nw_src : f.nw_dst;
    d.nw_src = loopback ? f.nw_dst : f.nw_src;
  }
}

function icmp(f: Fields, d: Fields, v6: boolean, loopback: boolean): string | undefined {
  const unreach = v6 ? 1n : 3n;
  if (loopback && f.tp_src === unreach) return undefined;
  swap(f, d, loopback, v6);
  d.nw_proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
  d.nw_ttl = 255n;
  d.tp_src = unreach;
  d.tp_dst = 1n;
  return v6 ? "icmp6" : "icmp4";
}

function tcpReset(f: Fields, d: Fields, loopback: boolean): string | undefined {
  if (loopback && f.tcp_flags === 4n) return undefined;
  swap(f, d, loopback, f.dl_type !== ETH_TYPE_IP);
  d.nw_proto = IPPROTO_TCP;
  d.nw_ttl = 255n;
  d.tcp_flags = 4n;
  return "tcp_reset";
}

function sctpAbort(f: Fields, d: Fields, loopback: boolean): string | undefined {
  if (loopback && f.tcp_flags === 4n) return undefined;
  const v4 = f.dl_type === ETH_TYPE_IP;
  swap(f, d, loopback, !v4);
  // ovn-trace marks the IPv6 abort as TCP (execute_sctp6_abort); kept for parity.
  d.nw_proto = v4 ? IPPROTO_SCTP : IPPROTO_TCP;
  d.nw_ttl = 255n;
  d.tcp_flags = 4n;
  return "sctp_abort";
}

function arp(f: Fields, d: Fields): string {
  d.nw_frag = 0n;
  d.nw_tos = 0n;
  d.nw_ttl = 0n;
  d.tcp_flags = 0n;
  d.dl_type = ETH_TYPE_ARP;
  d.nw_proto = 1n;
  d.arp_sha = f.dl_src;
  d.arp_tha = 0n;
  return "arp";
}

function ndNa(f: Fields, d: Fields): string {
  d.dl_src = f.dl_dst;
  d.dl_dst = f.dl_src;
  d.ipv6_dst = f.ipv6_src;
  d.ipv6_src = f.nd_target;
  d.tp_src = 136n;
  d.arp_sha = 0n;
  d.arp_tha = f.dl_dst;
  return "nd_na";
}

function ndNs(f: Fields, d: Fields): string {
  // Solicited-node multicast of the destination: ff02::1:ffXX:XXXX, and its 33:33 MAC.
  const sn = (0xff02n << 112n) | (0x1ffn << 24n) | (f.ipv6_dst & 0xffffffn);
  d.dl_dst = (0x3333n << 32n) | (sn & 0xffffffffn);
  d.tp_src = 135n;
  d.arp_sha = 0n;
  d.arp_tha = f.dl_dst;
  return "nd_ns";
}

function reject(f: Fields, d: Fields): string | undefined {
  if (f.nw_proto === IPPROTO_TCP) return tcpReset(f, d, true);
  if (f.nw_proto === IPPROTO_SCTP) return sctpAbort(f, d, true);
  return icmp(f, d, f.dl_type !== ETH_TYPE_IP, true);
}

function derive(name: NestedName, f: Fields, d: Fields): string | undefined {
  switch (name) {
    case "clone":
      return "clone";
    case "arp":
      return arp(f, d);
    case "nd_na":
    case "nd_na_router":
      return ndNa(f, d);
    case "nd_ns":
      return ndNs(f, d);
    case "icmp4":
    case "icmp4_error":
      return icmp(f, d, false, false);
    case "icmp6":
    case "icmp6_error":
      return icmp(f, d, true, false);
    case "tcp_reset":
      return tcpReset(f, d, false);
    case "sctp_abort":
      return sctpAbort(f, d, false);
    case "reject":
      return reject(f, d);
    case "ct_commit":
      // ct_commit { ... } writes conntrack marks a trace does not follow.
      return undefined;
  }
}

/** The packet nested action `name` runs its actions on, or undefined when it runs none. */
export function nestedPacket(name: NestedName, flow: Flow): NestedPacket | undefined {
  const derived = cloneFlow(flow);
  const label = derive(name, flow.f, derived.f);
  return label === undefined ? undefined : { label, flow: derived };
}
