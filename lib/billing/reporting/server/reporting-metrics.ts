import type { Sql } from "postgres";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Logger } from "../../../foundation/log/logger.ts";
import type { IngestOutcome } from "../ingest/ingest-batch.ts";

/**
 * The nine `svc_` series of the reporting server, over ingest, projection and reconciliation
 * (docs/decisions/). Instruments count whether or not `/metrics` is served.
 */
export class ReportingMetrics {
  readonly ingestEvents: Counter<"outcome">;
  readonly ingestRejected: Counter<"reason">;
  readonly unvalidatedSize: Counter<"platform" | "resource_type">;
  readonly ingestBatchSeconds: Histogram<"status">;
  readonly projectionRefolds: Counter<"path">;
  readonly rebuildSeconds: Histogram;
  readonly currentResources: Gauge<"cloud" | "resource_type" | "status">;
  readonly syncRuns: Counter<"cloud" | "outcome">;
  readonly syncSeconds: Histogram<"cloud">;

  constructor(registry: Registry) {
    const registers = [registry];
    this.ingestEvents = new Counter({
      name: "svc_ingest_events_total",
      help: "Ingested events by outcome: accepted (stored) or duplicate (already stored)",
      labelNames: ["outcome"],
      registers,
    });
    this.ingestRejected = new Counter({
      name: "svc_ingest_rejected_total",
      help: "Refused ingest items by reason: invalid, size_schema, unregistered_size, scope",
      labelNames: ["reason"],
      registers,
    });
    this.unvalidatedSize = new Counter({
      name: "svc_ingest_unvalidated_size_total",
      help: "Sizes stored without a registered size schema for their (platform, resource_type)",
      labelNames: ["platform", "resource_type"],
      registers,
    });
    this.ingestBatchSeconds = new Histogram({
      name: "svc_ingest_batch_duration_seconds",
      help: "Time to store one POST /api/v1/events batch, projection included",
      labelNames: ["status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.projectionRefolds = new Counter({
      name: "svc_projection_refolds_total",
      help: "Resources folded again from their full history: an older arrival (ingest) or a rebuild",
      labelNames: ["path"],
      registers,
    });
    this.rebuildSeconds = new Histogram({
      name: "svc_projection_rebuild_duration_seconds",
      help: "Time of one POST /internal/projection/rebuild",
      buckets: [0.01, 0.05, 0.25, 1, 5, 30, 120, 600],
      registers,
    });
    this.currentResources = new Gauge({
      name: "svc_current_resources",
      help: "Resources in the projection by cloud, resource type and status (active, deleted)",
      labelNames: ["cloud", "resource_type", "status"],
      registers,
    });
    this.syncRuns = new Counter({
      name: "svc_sync_runs_total",
      help: "Reconciliation runs by cloud and outcome",
      labelNames: ["cloud", "outcome"],
      registers,
    });
    this.syncSeconds = new Histogram({
      name: "svc_sync_duration_seconds",
      help: "Time of one reconciliation run",
      labelNames: ["cloud"],
      buckets: [0.1, 0.5, 1, 5, 15, 45, 120, 600],
      registers,
    });
  }

  recordIngest(outcome: IngestOutcome): void {
    const { result } = outcome;
    if (result.accepted > 0) this.ingestEvents.inc({ outcome: "accepted" }, result.accepted);
    if (result.duplicates > 0) this.ingestEvents.inc({ outcome: "duplicate" }, result.duplicates);
    for (const [reason, n] of Object.entries(outcome.refusals)) {
      if (n > 0) this.ingestRejected.inc({ reason }, n);
    }
    for (const u of outcome.unvalidatedSizes) {
      this.unvalidatedSize.inc({ platform: u.platform, resource_type: u.resource_type }, u.count);
    }
    if (outcome.projection.refolded > 0)
      this.projectionRefolds.inc({ path: "ingest" }, outcome.projection.refolded);
  }

  /** Reads the projection's counts into `svc_current_resources`, replacing the previous reading. */
  async refreshCurrentResources(sql: Sql): Promise<void> {
    const rows = await sql<{ cloud: string; resource_type: string; deleted: boolean; n: number }[]>`
      select cloud, resource_type, deleted_at is not null as deleted, count(*)::int as n
      from current_resources group by 1, 2, 3`;
    this.currentResources.reset();
    for (const r of rows) {
      this.currentResources.set(
        { cloud: r.cloud, resource_type: r.resource_type, status: r.deleted ? "deleted" : "active" },
        r.n,
      );
    }
  }

  /**
   * Refreshes the gauge now and every `intervalS`; returns the stop function. A failed refresh (the
   * database down) keeps the last reading and is logged at debug: the probes already say so.
   */
  startRefresher(sql: Sql, intervalS: number, logger: Logger): () => void {
    const refresh = () => {
      this.refreshCurrentResources(sql).catch((err: unknown) =>
        logger.debug({ err }, "svc_current_resources not refreshed"),
      );
    };
    refresh();
    const timer = setInterval(refresh, intervalS * 1000);
    timer.unref();
    return () => clearInterval(timer);
  }
}
