/**
 * Netview's operations (issue 17): change history and its stream, snapshots, guarded writes,
 * telemetry and alerts,
 * built on the state database, as one unit the program starts after the clusters and stops before
 * closing the state. The routes of each part live in their own plugin (`opsRoutes`).
 */
import type { Database } from "bun:sqlite";
import type { Registry } from "prom-client";
import type { OvsdbLogger } from "../ovsdb/ovsdb-client.ts";
import { AlertEngine } from "./alerts/alert-engine.ts";
import { registerAlertMetrics } from "./alerts/alert-metrics.ts";
import { AlertStore } from "./alerts/alert-store.ts";
import { tlsMaterialOf } from "./build-clusters.ts";
import type { ClusterSet } from "./cluster.ts";
import type { HubLimits } from "./history/change-hub.ts";
import { History } from "./history/history.ts";
import type { NetviewOptions } from "./netview-options.ts";
import { SnapshotStore } from "./snapshots/snapshot-store.ts";
import { Snapshots } from "./snapshots/snapshots.ts";
import { openStateDb } from "./state/state-db.ts";
import { ClusterTelemetry } from "./telemetry/cluster-telemetry.ts";
import { RaftProbe } from "./telemetry/raft-probe.ts";
import { registerTelemetryMetrics } from "./telemetry/telemetry-metrics.ts";
import { AuditStore } from "./write/audit-store.ts";
import { PlanStore } from "./write/plan-store.ts";
import type { WriteSettings } from "./write/write-routes.ts";
import { Writes } from "./write/writes.ts";

export interface NetviewOps {
  readonly db: Database;
  readonly history: History;
  readonly snapshots: Snapshots;
  readonly writes: Writes;
  readonly telemetry: ClusterTelemetry;
  readonly alerts: AlertEngine;
  readonly writeSettings: WriteSettings;
  start(): void;
  stop(): void;
}

export interface OpsOptions {
  options: Pick<
    NetviewOptions,
    | "stateDir"
    | "eventsRetentionMs"
    | "eventsMax"
    | "snapshotsMax"
    | "writeEnabled"
    | "writeToken"
    | "clusters"
    | "tls"
    | "chassisStaleThresholdMs"
  >;
  clusters: ClusterSet;
  log?: OvsdbLogger;
  now?: () => number;
  hubLimits?: HubLimits;
  planTtlMs?: number;
  /** How often the alert rules are evaluated (default 1 s). */
  alertEveryMs?: number;
  /** How often each raft member is asked (default 10 s). */
  raftProbeMs?: number;
  /** An open state database (tests); otherwise opened from `options.stateDir`. */
  db?: Database;
}

export function buildOps(o: OpsOptions): NetviewOps {
  const db = o.db ?? openStateDb(o.options.stateDir);
  const common = {
    ...(o.now === undefined ? {} : { now: o.now }),
    ...(o.log === undefined ? {} : { log: o.log }),
  };
  const history = new History({
    db,
    clusters: o.clusters,
    retention: { maxAgeMs: o.options.eventsRetentionMs, maxEvents: o.options.eventsMax },
    keepLastState: o.options.stateDir !== undefined,
    ...(o.hubLimits === undefined ? {} : { hubLimits: o.hubLimits }),
    ...common,
  });
  const snapshots = new Snapshots(new SnapshotStore(db, o.options.snapshotsMax), o.clusters, o.now);
  const writes = new Writes({
    clusters: o.clusters,
    plans: new PlanStore(db),
    audit: new AuditStore(db),
    snapshots,
    ...(o.planTtlMs === undefined ? {} : { planTtlMs: o.planTtlMs }),
    ...common,
  });
  const tls = tlsMaterialOf(o.options);
  const raft = new RaftProbe(
    o.options.clusters.map((c) => ({ cluster: c.name, nb: c.nb, sb: c.sb })),
    {
      intervalMs: o.raftProbeMs ?? 10_000,
      timeoutMs: 2000,
      ...(tls === undefined ? {} : { tls }),
      ...common,
    },
  );
  const telemetry = new ClusterTelemetry(o.clusters, raft, {
    chassisStaleThresholdMs: o.options.chassisStaleThresholdMs,
    ...(o.now === undefined ? {} : { now: o.now }),
  });
  const alertStore = new AlertStore(db);
  const alerts = new AlertEngine(telemetry, alertStore, o.alertEveryMs);
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    db,
    history,
    snapshots,
    writes,
    telemetry,
    alerts,
    writeSettings: { writeEnabled: o.options.writeEnabled, writeToken: o.options.writeToken },
    start: () => {
      history.start();
      telemetry.start();
      alerts.start();
      const prune = () => {
        writes.prune();
        alertStore.prune((o.now ?? Date.now)());
      };
      prune();
      timer = setInterval(prune, 3_600_000);
    },
    stop: () => {
      clearInterval(timer);
      alerts.stop();
      telemetry.stop();
      history.stop();
      db.close();
    },
  };
}

/** Every series of the operations on the program's registry. */
export function registerOpsMetrics(registry: Registry, ops: NetviewOps): void {
  registerTelemetryMetrics(registry, ops.telemetry, ops.history);
  registerAlertMetrics(registry, ops.alerts);
}
