/**
 * What the telemetry routes, the metrics and the alerts read per cluster: the chassis inventory (on
 * a clock of its own, decision 307), the propagation history, and the raft probe's answers.
 */
import { chassisInventory, type InventoryEntry } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { NbCfgClock } from "../nb-cfg-clock.ts";
import { PropagationTracker } from "./propagation-tracker.ts";
import type { RaftProbe, RaftStatus } from "./raft-probe.ts";

export class ClusterTelemetry {
  private readonly clocks = new Map<Cluster, NbCfgClock>();
  private readonly trackers = new Map<Cluster, PropagationTracker>();
  private readonly now: () => number;

  constructor(
    readonly clusters: ClusterSet,
    readonly raft: RaftProbe,
    private readonly settings: { chassisStaleThresholdMs: number; now?: () => number },
  ) {
    this.now = settings.now ?? Date.now;
    for (const cluster of clusters.all) {
      this.clocks.set(cluster, new NbCfgClock(cluster.sb.cache, this.now));
      this.trackers.set(cluster, new PropagationTracker(cluster, { now: this.now }));
    }
  }

  get staleThresholdMs(): number {
    return this.settings.chassisStaleThresholdMs;
  }

  nowMs(): number {
    return this.now();
  }

  inventory(cluster: Cluster): InventoryEntry[] {
    if (cluster.sb.cache.schema === undefined) return [];
    return chassisInventory(cluster.sb.cache, {
      nowMs: this.now(),
      staleMs: this.settings.chassisStaleThresholdMs,
      generationSinceMs: this.clocks.get(cluster)?.generationSinceMs ?? null,
    });
  }

  generations(cluster: Cluster) {
    return this.trackers.get(cluster)?.generations ?? [];
  }

  raftStatus(cluster: Cluster): RaftStatus[] {
    return this.raft.status(cluster.name);
  }

  start(): void {
    for (const tracker of this.trackers.values()) tracker.start();
    this.raft.start();
  }

  stop(): void {
    this.raft.stop();
    for (const tracker of this.trackers.values()) tracker.stop();
  }
}
