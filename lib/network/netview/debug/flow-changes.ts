/**
 * Recent logical-flow changes (`GET /api/v1/debug/flow-diff`): every Logical_Flow insert, delete and
 * modification the SB monitor delivers, kept in memory in a ring of `capacity` changes per server
 * (decision 332), numbered, grouped by monitor notification (`txn`), with the datapaths named as they
 * were when the change arrived. The first sync of a cluster is its starting state, not a change, and
 * nothing is recorded while a snapshot session suspends it; a later full resync is recorded with
 * `resync: true`, and a change ovsdb-server may have merged with earlier ones of the same flow with
 * `coalesced: true` (decision 372). The conversion from row changes is pure.
 */
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { RowChange } from "../../ovsdb/update2.ts";
import type { Cluster } from "../cluster.ts";
import { type FlowFields, flowFields } from "../views/flows.ts";
import { num, str, strMap, strs } from "../views/row-values.ts";

interface FlowState {
  priority: number;
  match: string;
  actions: string;
}

export interface FlowChange extends FlowFields {
  seq: number;
  txn: number;
  at: string;
  cluster: string;
  change: "added" | "removed" | "modified";
  resync: boolean;
  coalesced: boolean;
  uuid: string;
  datapaths: { uuid: string; name: string | null }[];
  /** What a modified flow was before (its earlier priority, match and actions). */
  before: FlowState | null;
}

const defaultFlowChangeCapacity = 10_000;

/** The flow changes in one batch of row changes, datapaths named from the batch and the cache. */
export function flowChangesOf(
  changes: readonly RowChange[],
  sb: Pick<DatabaseCache, "get">,
): Omit<FlowChange, "seq" | "txn" | "at" | "cluster" | "resync" | "coalesced">[] {
  // Rows deleted in the same batch are gone from the cache: take their last state from the batch.
  const gone = new Map<string, Row>();
  for (const c of changes)
    if (c.old !== undefined && (c.table === "Datapath_Binding" || c.table === "Logical_DP_Group"))
      gone.set(c.uuid, c.old);
  const row = (table: string, uuid: string) => sb.get(table, uuid) ?? gone.get(uuid);
  const out = [];
  for (const c of changes) {
    if (c.table !== "Logical_Flow") continue;
    const flow = c.new ?? c.old;
    if (flow === undefined) continue;
    const dps = [
      ...(typeof flow.logical_datapath === "string" ? [flow.logical_datapath] : []),
      ...(typeof flow.logical_dp_group === "string"
        ? strs(row("Logical_DP_Group", flow.logical_dp_group)?.datapaths)
        : []),
    ];
    const before =
      c.old !== undefined && c.new !== undefined
        ? { priority: num(c.old.priority), match: str(c.old.match), actions: str(c.old.actions) }
        : null;
    out.push({
      change:
        c.old === undefined
          ? ("added" as const)
          : c.new === undefined
            ? ("removed" as const)
            : ("modified" as const),
      uuid: c.uuid,
      datapaths: dps.map((uuid) => ({
        uuid,
        name: strMap(row("Datapath_Binding", uuid)?.external_ids).name ?? null,
      })),
      ...flowFields(flow),
      before,
    });
  }
  return out;
}

interface FlowChangeQuery {
  cluster: string;
  /** Only changes numbered above this. */
  since?: number;
  /** Datapath uuids (any of them). */
  datapaths?: ReadonlySet<string>;
  stage?: string;
  change?: FlowChange["change"];
  limit: number;
}

export class FlowChangeLog {
  private readonly ring: FlowChange[] = [];
  private nextSeq = 1;
  private nextTxn = 1;
  private droppedCount = 0;

  constructor(
    readonly capacity = defaultFlowChangeCapacity,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records the cluster's SB flow changes from now on; returns the unsubscribe. */
  watch(cluster: Cluster): () => void {
    let initialDone = false;
    void cluster.sb.ready().then(() => {
      initialDone = true;
    });
    return cluster.sb.cache.subscribe((changes, cache, commit) => {
      if (cluster.suspended) return;
      // A commit outside a live session is a (re)sync; the first one is the starting state.
      if (!cache.authoritative && !initialDone) return;
      const resync = !cache.authoritative;
      this.add(cluster.name, flowChangesOf(changes, cache), {
        resync,
        coalesced: commit.coalesced && !resync,
      });
    });
  }

  add(
    cluster: string,
    changes: ReturnType<typeof flowChangesOf>,
    how: { resync: boolean; coalesced: boolean },
  ): void {
    if (changes.length === 0) return;
    const txn = this.nextTxn++;
    const at = new Date(this.now()).toISOString();
    for (const c of changes) this.ring.push({ ...c, seq: this.nextSeq++, txn, at, cluster, ...how });
    const excess = this.ring.length - this.capacity;
    if (excess > 0) {
      this.ring.splice(0, excess);
      this.droppedCount += excess;
    }
  }

  /** Newest first. */
  list(q: FlowChangeQuery) {
    const matching = this.ring.filter(
      (c) =>
        c.cluster === q.cluster &&
        (q.since === undefined || c.seq > q.since) &&
        (q.stage === undefined || c.stage === q.stage) &&
        (q.change === undefined || c.change === q.change) &&
        (q.datapaths === undefined || c.datapaths.some((d) => q.datapaths?.has(d.uuid))),
    );
    const summary = { added: 0, removed: 0, modified: 0 };
    for (const c of matching) summary[c.change]++;
    const changes = matching.slice(-q.limit).reverse();
    return {
      capacity: this.capacity,
      kept: this.ring.length,
      dropped: this.droppedCount,
      last_seq: this.nextSeq - 1,
      oldest_seq: this.ring[0]?.seq ?? null,
      matching: summary,
      truncated: matching.length > changes.length,
      changes,
    };
  }
}
