import { and, asc, count, gt, gte, lt, max } from "drizzle-orm";
import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { canonicalInstant } from "../../foundation/postgres/canonical-instant.ts";
import { drizzleHandle } from "../../foundation/postgres/drizzle-handle.ts";
import type { Period } from "../../foundation/time/period.ts";
import * as reportingSchema from "../reporting/schema.ts";
import { events } from "../reporting/schema.ts";
import { finalizedChain } from "./run-lookup.ts";

/** One resource with late events. */
export interface LateResource {
  cloud: string;
  platform: string;
  resource_type: string;
  resource_id: string;
  late_events: number;
  last_received: string;
}

/** What `detect-late --json` prints: the run compared with, when it read the month, what came later. */
export interface LateReport {
  period: string;
  run_id: string;
  read_at: string;
  resources: LateResource[];
}

/** The lines `detect-late` prints. */
export function lateLines(report: LateReport): string[] {
  const lines = [`run ${report.run_id} read ${report.period} at ${report.read_at}`];
  if (report.resources.length === 0) return [...lines, "no events arrived later"];
  for (const r of report.resources) {
    lines.push(
      `${r.cloud}/${r.platform}/${r.resource_type}/${r.resource_id}: ${r.late_events} late events, last received ${r.last_received}`,
    );
  }
  lines.push(`book them with correct --period ${report.period}`);
  return lines;
}

/**
 * `detect-late --period` (docs/engine.md#late-events): reads and changes nothing. A late event is dated inside the month and
 * was received after the finalized run read it. Prints the run and its read instant, one line per
 * resource with late events (`<cloud>/<platform>/<resource_type>/<resource_id>: <n> late events, last
 * received <instant>`) and the hint to book them, or `no events arrived later`. The run compared with
 * is the last of the finalized chain: once a correction is finalized, it is that correction.
 */
export async function detectLate(engine: Sql, reporting: Sql, period: Period): Promise<LateReport> {
  const finalized = (await finalizedChain(engine, period.name)).at(-1);
  if (finalized === undefined) {
    throw new UsageError(
      `${period.name} has no finalized run: events are late only against a finalized run; run the month with run --period ${period.name} and close it with finalize --period ${period.name}`,
    );
  }
  const readAt = finalized.readAt as string;
  const e = events;
  const key = [e.cloud, e.platform, e.resourceType, e.resourceId] as const;
  const late = await drizzleHandle(reporting, reportingSchema)
    .select({
      cloud: e.cloud,
      platform: e.platform,
      resourceType: e.resourceType,
      resourceId: e.resourceId,
      n: count(),
      last: canonicalInstant<string>(max(e.receivedAt)),
    })
    .from(e)
    .where(and(gte(e.timestamp, period.from), lt(e.timestamp, period.to), gt(e.receivedAt, readAt)))
    .groupBy(...key)
    .orderBy(...key.map((c) => asc(c)));
  return {
    period: period.name,
    run_id: finalized.id,
    read_at: readAt,
    resources: late.map((r) => ({
      cloud: r.cloud,
      platform: r.platform,
      resource_type: r.resourceType,
      resource_id: r.resourceId,
      late_events: r.n,
      last_received: r.last,
    })),
  };
}
