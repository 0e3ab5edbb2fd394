/**
 * OVN logical-flow actions (ovn/lib/actions.c) as plain objects: what the parser
 * (`action-parser.ts`) builds, the trace executes and `action-format.ts` prints back. Actions a trace
 * cannot follow (controller-only ones such as `trigger_event` or `sample`) are kept as `opaque` with
 * their text.
 */
import type { AExpr, Constant, ConstantSet, ParseContext } from "./expr.ts";
import type { OvnSymbol } from "./symbols.ts";

export type Pipeline = "ingress" | "egress";

/** `LOG_PIPELINE_LEN`: tables per pipeline. */
export const PIPELINE_TABLES = 29;

export interface FieldRef {
  symbol: OvnSymbol;
  ofs: number;
  nBits: number;
}

export interface LbDst {
  family: 4 | 6;
  ip: bigint;
  port: number;
}

export interface GenOption {
  name: string;
  value: ConstantSet;
}

export type NestedName =
  | "clone"
  | "arp"
  | "icmp4"
  | "icmp4_error"
  | "icmp6"
  | "icmp6_error"
  | "tcp_reset"
  | "sctp_abort"
  | "nd_na"
  | "nd_na_router"
  | "nd_ns"
  | "reject"
  | "ct_commit";

type ResultName =
  | "dns_lookup"
  | "chk_lb_hairpin"
  | "chk_lb_hairpin_reply"
  | "check_in_port_sec"
  | "check_out_port_sec"
  | "chk_ecmp_nh_mac"
  | "chk_ecmp_nh"
  | "chk_lb_aff";

export type Action =
  | { type: "output" }
  | { type: "next"; pipeline: Pipeline; table: number; srcPipeline: Pipeline; srcTable: number }
  | { type: "load"; dst: FieldRef; imm: Constant }
  | { type: "ovnfield_load"; name: string; value: bigint }
  | { type: "move" | "exchange"; lhs: FieldRef; rhs: FieldRef }
  | { type: "push" | "pop"; field: FieldRef }
  | { type: "dec_ttl" }
  | { type: "ct_next"; table: number }
  | { type: "ct_commit_v1"; mark: bigint; markMask: bigint; label: bigint; labelMask: bigint }
  | { type: "nested"; name: NestedName; actions: Action[] }
  | {
      type: "ct_nat";
      name: "ct_dnat" | "ct_snat" | "ct_dnat_in_czone" | "ct_snat_in_czone";
      table: number;
      family: 4 | 6 | undefined;
      ip: bigint;
      portRange: { lo: number; hi: number } | undefined;
    }
  | { type: "ct_commit_nat"; table: number }
  | {
      type: "ct_lb";
      mark: boolean;
      table: number;
      dsts: LbDst[];
      hashFields: string | undefined;
      flag: "skip_snat" | "force_snat" | undefined;
    }
  | { type: "select"; res: FieldRef; dsts: { id: number; weight: number }[]; table: number }
  | { type: "ct_clear" }
  | { type: "get_mac_bind"; name: "get_arp" | "get_nd"; port: FieldRef; ip: FieldRef }
  | { type: "put_mac_bind"; name: "put_arp" | "put_nd"; port: FieldRef; ip: FieldRef; mac: FieldRef }
  | {
      type: "lookup_mac_bind";
      name: "lookup_arp" | "lookup_nd";
      dst: FieldRef;
      port: FieldRef;
      ip: FieldRef;
      mac: FieldRef;
    }
  | {
      type: "lookup_mac_bind_ip";
      name: "lookup_arp_ip" | "lookup_nd_ip";
      dst: FieldRef;
      port: FieldRef;
      ip: FieldRef;
    }
  | {
      type: "put_opts";
      name: "put_dhcp_opts" | "put_dhcpv6_opts" | "put_nd_ra_opts";
      dst: FieldRef;
      options: GenOption[];
    }
  | { type: "result"; name: ResultName; dst: FieldRef }
  | { type: "check_pkt_larger"; dst: FieldRef; len: number }
  | { type: "get_fdb"; dst: FieldRef; mac: FieldRef }
  | { type: "lookup_fdb"; dst: FieldRef; port: FieldRef; mac: FieldRef }
  | { type: "put_fdb"; port: FieldRef; mac: FieldRef }
  | { type: "log"; name: string | undefined; verdict: string; severity: string; meter: string | undefined }
  | { type: "set_meter"; rate: bigint; burst: bigint }
  | { type: "set_queue"; id: number }
  | { type: "handle_svc_check"; port: FieldRef }
  | { type: "bind_vport"; vport: string; parent: FieldRef }
  | { type: "simple"; name: "igmp" | "ct_snat_to_vip" | "handle_dhcpv6_reply" | "handle_bfd_msg" }
  | { type: "opaque"; text: string };

export interface ActionContext extends ParseContext {
  pipeline: Pipeline;
  table: number;
}

export interface ParsedActions {
  actions: Action[];
  /** Conditions the actions add to the flow's match (fields they touch, `ip` for conntrack, ...). */
  prereqs: AExpr | undefined;
}
