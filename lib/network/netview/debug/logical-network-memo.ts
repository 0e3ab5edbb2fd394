/**
 * The trace's view of a cluster's SB (lib/network/ovn-logic/logical-network.ts), rebuilt only when the cache
 * changed: one build per SB version serves every trace until the next change, and the flows it
 * compiled stay memoised per row across builds.
 */
import { buildLogicalNetwork, type LogicalNetwork } from "../../ovn-logic/logical-network.ts";
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import { checkTable } from "../table-json.ts";

const memo = new WeakMap<DatabaseCache, { version: number; net: LogicalNetwork }>();

export function logicalNetworkOf(sb: DatabaseCache): LogicalNetwork {
  checkTable(sb, "southbound", "Logical_Flow");
  const hit = memo.get(sb);
  if (hit !== undefined && hit.version === sb.version) return hit.net;
  const net = buildLogicalNetwork(sb);
  memo.set(sb, { version: sb.version, net });
  return net;
}
