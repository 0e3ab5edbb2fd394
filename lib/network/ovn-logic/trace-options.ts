/**
 * ovn-trace's options for the stateful actions: the conntrack states handed out in turn (`--ct`), the
 * load-balancer backend to pick (`--lb-dst`) and the group member to select (`--select-id`).
 */
import { parseLbKey } from "./logical-network.ts";
import { CS_TRACKED, ctStateNames } from "./symbols.ts";
import { TraceError } from "./trace-tree.ts";

export interface LbDestination {
  family: 4 | 6;
  ip: bigint;
  port: number;
}

export interface TraceOptions {
  /** Conntrack states handed out in order to ct_next/ct_lb/NAT (ovn-trace --ct); then est|trk. */
  ct?: bigint[];
  /** ovn-trace --lb-dst. */
  lbDst?: LbDestination;
  /** ovn-trace --select-id. */
  selectId?: number;
}

/** One `--ct` state: flag names separated by `,` or `|` (`new`, `est,rpl`); `trk` is always added. */
export function parseCtState(text: string): bigint {
  let state = CS_TRACKED;
  for (const name of text.split(/[,|+ ]/).filter((s) => s !== "")) {
    const bit = ctStateNames.indexOf(name as (typeof ctStateNames)[number]);
    if (bit < 0) throw new TraceError(`${name}: unknown connection tracking state flag`);
    state |= 1n << BigInt(bit);
  }
  return state;
}

/** `--lb-dst`: `IP`, `IP:PORT` or `[IPv6]:PORT`. */
export function parseLbDst(text: string): LbDestination {
  const vip = parseLbKey(text);
  if (vip === undefined) throw new TraceError(`${text}: bad address`);
  return { family: vip.family, ip: vip.ip, port: vip.port };
}
