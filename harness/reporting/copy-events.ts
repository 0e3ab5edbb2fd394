import type { Sql } from "postgres";
import { copyEventsCsv, eventsCsv } from "../../lib/billing/reporting/ingest/events-copy.ts";
import type { WorkloadEvent } from "./ingest-workload.ts";

/** The workload's events as CSV for `copyEventsCsv`, stored as the collector pipeline's. */
export function workloadCsv(events: readonly WorkloadEvent[]): string {
  return eventsCsv(events.map((e) => ({ ...e, source: "collector" })));
}

/**
 * Writes events straight into the `events` table with COPY, bypassing ingest: the benches' baseline
 * for ingest and their fast way to lay down a large history for the reads.
 */
export async function copyEvents(sql: Sql, events: readonly WorkloadEvent[]): Promise<void> {
  const chunk = 100_000;
  for (let i = 0; i < events.length; i += chunk)
    await copyEventsCsv(sql, workloadCsv(events.slice(i, i + chunk)));
}
