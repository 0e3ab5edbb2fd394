/**
 * Change history as one unit the program starts and stops: the event store on the state database,
 * the change feed over every cluster, the WebSocket hub, and the pruning of old events.
 */
import type { Database } from "bun:sqlite";
import type { OvsdbLogger } from "../../ovsdb/ovsdb-client.ts";
import type { ClusterSet } from "../cluster.ts";
import { ChangeFeed } from "./change-feed.ts";
import { ChangeHub, type HubLimits } from "./change-hub.ts";
import { type EventRetention, EventStore } from "./event-store.ts";
import { LastState } from "./last-state.ts";

interface HistoryOptions {
  db: Database;
  clusters: ClusterSet;
  retention: EventRetention;
  hubLimits?: HubLimits;
  now?: () => number;
  log?: OvsdbLogger;
  /** How often events beyond the retention age are pruned (count is pruned as events come in). */
  pruneEveryMs?: number;
  /**
   * Keep the rows as the events leave them, so that a restart records what changed while netview
   * was down (with a state directory: decision 373).
   */
  keepLastState?: boolean;
}

export class History {
  readonly store: EventStore;
  readonly feed: ChangeFeed;
  readonly hub: ChangeHub;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: HistoryOptions) {
    const lastState = options.keepLastState === true ? new LastState(options.db) : undefined;
    lastState?.retain(options.clusters.all.map((c) => c.name));
    this.store = new EventStore(options.db, options.retention, lastState);
    const last = this.store.last();
    this.feed = new ChangeFeed({
      clusters: options.clusters.all,
      lastSeq: last.seq,
      lastTxn: last.txn,
      ...(lastState === undefined
        ? {}
        : {
            startingChanges: (cluster, database, cache) => {
              if (lastState.known(cluster, database)) return lastState.changesTo(cluster, database, cache);
              lastState.replace(cluster, database, cache);
              return [];
            },
          }),
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
    this.hub = new ChangeHub(this.store, {
      ...(options.hubLimits === undefined ? {} : { limits: options.hubLimits }),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
    this.feed.addSink((events) => this.store.append(events));
    this.feed.addSink((events) => this.hub.broadcast(events));
  }

  start(): void {
    this.feed.start();
    const now = this.options.now ?? Date.now;
    this.store.prune(now());
    this.timer = setInterval(() => this.store.prune(now()), this.options.pruneEveryMs ?? 60_000);
  }

  stop(): void {
    clearInterval(this.timer);
    this.feed.stop();
  }
}
