/**
 * Netview's operations (issue 17): change history and its stream, snapshots, built on the state database, as
 * one unit the program starts after the clusters and stops before closing the state. The routes of
 * each part live in their own plugin (`opsRoutes`).
 */
import type { Database } from "bun:sqlite";
import type { OvsdbLogger } from "../ovsdb/ovsdb-client.ts";
import type { ClusterSet } from "./cluster.ts";
import type { HubLimits } from "./history/change-hub.ts";
import { History } from "./history/history.ts";
import type { NetviewOptions } from "./netview-options.ts";
import { SnapshotStore } from "./snapshots/snapshot-store.ts";
import { Snapshots } from "./snapshots/snapshots.ts";
import { openStateDb } from "./state/state-db.ts";

export interface NetviewOps {
  readonly db: Database;
  readonly history: History;
  readonly snapshots: Snapshots;
  start(): void;
  stop(): void;
}

export interface OpsOptions {
  options: Pick<NetviewOptions, "stateDir" | "eventsRetentionMs" | "eventsMax" | "snapshotsMax">;
  clusters: ClusterSet;
  log?: OvsdbLogger;
  now?: () => number;
  hubLimits?: HubLimits;
  /** An open state database (tests); otherwise opened from `options.stateDir`. */
  db?: Database;
}

export function buildOps(o: OpsOptions): NetviewOps {
  const db = o.db ?? openStateDb(o.options.stateDir);
  const history = new History({
    db,
    clusters: o.clusters,
    retention: { maxAgeMs: o.options.eventsRetentionMs, maxEvents: o.options.eventsMax },
    ...(o.hubLimits === undefined ? {} : { hubLimits: o.hubLimits }),
    ...(o.now === undefined ? {} : { now: o.now }),
    ...(o.log === undefined ? {} : { log: o.log }),
  });
  const snapshots = new Snapshots(new SnapshotStore(db, o.options.snapshotsMax), o.clusters, o.now);
  return {
    db,
    history,
    snapshots,
    start: () => history.start(),
    stop: () => {
      history.stop();
      db.close();
    },
  };
}
