/**
 * A logical port's port security as `check_in_port_sec()` and `check_out_port_sec()` apply it
 * (ovn-controller's port-security flows, as ovn-trace models them): the packet's MAC, then its IPv4 or
 * IPv6 source (in) or destination (out) among the port's addresses, with DHCP discovery, ARP, ND and
 * multicast as OVN lets them through.
 */
import { linkLocalOf } from "./addresses.ts";
import { ETH_TYPE_ARP, ETH_TYPE_IP, ETH_TYPE_IPV6, type Flow, IPPROTO_ICMPV6, IPPROTO_UDP } from "./flow.ts";
import type { PortSecurity } from "./logical-network.ts";

export function inPortSecurityAllows(addresses: PortSecurity[], flow: Flow): boolean {
  const f = flow.f;
  for (const ps of addresses) {
    if (f.dl_src !== ps.mac) continue;
    if (f.dl_type === ETH_TYPE_IP) {
      if (ps.ipv4.length === 0 && ps.ipv6.length === 0) return true;
      if (ps.ipv4.includes(f.nw_src)) return true;
      return (
        f.nw_proto === IPPROTO_UDP &&
        f.tp_src === 68n &&
        f.tp_dst === 67n &&
        f.nw_src === 0n &&
        f.nw_dst === 0xffffffffn
      );
    }
    if (f.dl_type === ETH_TYPE_ARP) {
      if (f.arp_sha !== ps.mac) return false;
      return ps.ipv4.length === 0 || ps.ipv4.includes(f.nw_src);
    }
    if (f.dl_type === ETH_TYPE_IPV6) {
      if (ps.ipv4.length === 0 && ps.ipv6.length === 0) return true;
      const lla = linkLocalOf(ps.mac);
      if (!ps.ipv6.includes(f.ipv6_src) && f.ipv6_src !== lla) return false;
      if (f.nw_proto === IPPROTO_ICMPV6) {
        if (f.tp_src === 135n && f.arp_sha !== 0n && f.arp_sha !== ps.mac) return false;
        if (f.tp_src === 136n) {
          if (f.arp_tha !== 0n && f.arp_tha !== ps.mac) return false;
          if (ps.ipv6.length > 0 && !ps.ipv6.includes(f.nd_target) && f.nd_target !== lla) return false;
        }
      }
      return true;
    }
    return true;
  }
  return false;
}

export function outPortSecurityAllows(addresses: PortSecurity[], flow: Flow): boolean {
  const f = flow.f;
  for (const ps of addresses) {
    if (f.dl_dst !== ps.mac) continue;
    if (f.dl_type === ETH_TYPE_IP) {
      if (ps.ipv4.length === 0 && ps.ipv6.length === 0) return true;
      if (ps.ipv4.length === 0) return false;
      if (ps.ipv4.includes(f.nw_dst) || f.nw_dst === 0xffffffffn) return true;
      return (f.nw_dst & 0xf0000000n) === 0xe0000000n;
    }
    if (f.dl_type === ETH_TYPE_IPV6) {
      if (ps.ipv4.length === 0 && ps.ipv6.length === 0) return true;
      if (ps.ipv6.length === 0) return false;
      if (ps.ipv6.includes(f.ipv6_dst) || f.ipv6_dst === linkLocalOf(ps.mac)) return true;
      return f.ipv6_dst >> 120n === 0xffn;
    }
    return true;
  }
  return false;
}
