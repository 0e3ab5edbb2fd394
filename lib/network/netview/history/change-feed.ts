/**
 * Turns the committed changes of every cluster's NB and SB caches into numbered change events and
 * hands each batch, in order, to its sinks (the event store first, then the WebSocket hub), all
 * synchronously inside the cache's commit, so no reader of a sink sees a change the cache has not.
 *
 * Not recorded: the rows of a first sync (the starting state, not a change) and anything while a
 * snapshot session suspends the cluster (the cache then holds the snapshot, decision 352). Changes a
 * later full resync finds are recorded with `resync: true`, and so are the differences between the
 * first sync and the rows as netview last saw them before a restart (`startingChanges`).
 */
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { OvsdbLogger } from "../../ovsdb/ovsdb-client.ts";
import type { RowChange } from "../../ovsdb/update2.ts";
import type { Cluster } from "../cluster.ts";
import { type ChangeEvent, changeEvents, type FeedDatabase } from "./change-event.ts";

type FeedSink = (events: readonly ChangeEvent[]) => void;

interface ChangeFeedOptions {
  clusters: readonly Cluster[];
  /**
   * Once a database's first sync is done: what changed since netview last watched it (recorded
   * with `resync: true`), or nothing when it was never watched (decision 373).
   */
  startingChanges?: (cluster: string, database: FeedDatabase, cache: DatabaseCache) => readonly RowChange[];
  /** The last seq and txn already recorded (from the event store), so numbers go on across restarts. */
  lastSeq?: number;
  lastTxn?: number;
  now?: () => number;
  log?: OvsdbLogger;
}

export class ChangeFeed {
  private nextSeq: number;
  private nextTxn: number;
  private readonly sinks: FeedSink[] = [];
  private readonly stops: (() => void)[] = [];
  private readonly now: () => number;

  constructor(private readonly options: ChangeFeedOptions) {
    this.nextSeq = (options.lastSeq ?? 0) + 1;
    this.nextTxn = (options.lastTxn ?? 0) + 1;
    this.now = options.now ?? Date.now;
  }

  /** Events handed out marked `coalesced` since the feed started. */
  coalescedEvents = 0;

  /** The seq of the last event handed out (0 before any). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  addSink(sink: FeedSink): void {
    this.sinks.push(sink);
  }

  start(): void {
    for (const cluster of this.options.clusters) {
      this.watch(cluster, "nb");
      this.watch(cluster, "sb");
    }
  }

  stop(): void {
    for (const stop of this.stops.splice(0)) stop();
  }

  private watch(cluster: Cluster, database: FeedDatabase): void {
    const client = database === "nb" ? cluster.nb : cluster.sb;
    let initialDone = false;
    void client.ready().then(() => {
      initialDone = true;
      // No commit comes between the end of the sync and this: the cache is the starting state.
      if (cluster.suspended) return;
      const changes = this.options.startingChanges?.(cluster.name, database, client.cache) ?? [];
      this.publish(changes, { cluster: cluster.name, database, resync: true, coalesced: false });
    });
    this.stops.push(
      client.cache.subscribe((changes, cache, commit) => {
        if (cluster.suspended) return;
        // A commit outside a live session is a (re)sync; the first one is the starting state.
        if (!cache.authoritative && !initialDone) return;
        const resync = !cache.authoritative;
        this.publish(changes, {
          cluster: cluster.name,
          database,
          resync,
          coalesced: commit.coalesced && !resync,
        });
      }),
    );
  }

  private publish(
    changes: readonly RowChange[],
    where: { cluster: string; database: FeedDatabase; resync: boolean; coalesced: boolean },
  ): void {
    const events = changeEvents(changes, {
      ...where,
      firstSeq: this.nextSeq,
      txn: this.nextTxn,
      at: new Date(this.now()).toISOString(),
    });
    if (events.length === 0) return;
    if (where.coalesced) this.coalescedEvents += events.length;
    this.nextSeq += events.length;
    this.nextTxn++;
    for (const sink of this.sinks) {
      try {
        sink(events);
      } catch (error) {
        // A failing sink (a full disk) must not undo the cache's commit or starve the other sinks.
        this.options.log?.warn({ err: error, seq: events[0]?.seq }, "change feed sink failed");
      }
    }
  }
}
