import type { Sql } from "postgres";
import type { WorkloadEvent } from "./ingest-workload.ts";

const csvField = (v: string) => `"${v.replaceAll('"', '""')}"`;

/** The events as CSV rows in the column order `copyCsv` names. */
export function eventsCsv(events: readonly WorkloadEvent[]): string {
  return events
    .map((e) =>
      [
        e.event_id,
        e.timestamp,
        e.event_type,
        e.platform,
        e.cloud,
        e.resource_type,
        e.resource_id,
        e.project_id,
        "collector",
        JSON.stringify(e.payload),
      ]
        .map(csvField)
        .join(","),
    )
    .join("\n");
}

/**
 * Writes events straight into the `events` table with COPY, bypassing ingest: the benches' baseline
 * for ingest and their fast way to lay down a large history for the reads.
 */
export async function copyEvents(sql: Sql, events: readonly WorkloadEvent[]): Promise<void> {
  const chunk = 100_000;
  for (let i = 0; i < events.length; i += chunk) await copyCsv(sql, eventsCsv(events.slice(i, i + chunk)));
}

/** One COPY of rows made by `eventsCsv`. */
export async function copyCsv(sql: Sql, text: string): Promise<void> {
  const writable = await sql`copy events (event_id, timestamp, event_type, platform, cloud, resource_type,
    resource_id, project_id, source, payload) from stdin with (format csv)`.writable();
  await new Promise<void>((resolve, reject) => {
    writable.on("error", reject);
    writable.on("finish", resolve);
    writable.write(text);
    writable.end();
  });
}
