import type { TransactionSql } from "postgres";
import { copyIn } from "../../../foundation/postgres/copy-in.ts";
import type { CanonicalEvent } from "../../events/event.ts";

/**
 * Events written with `COPY … FROM STDIN (FORMAT csv)`: ingest's way of storing a batch whose events
 * are known to be new (decision 122), and the ingest bench's baseline, so the bench compares the API
 * against the very statement ingest uses. Every field is quoted; validation has already refused what a
 * text column cannot hold (U+0000, lone surrogates), and a payload is at most 32 levels deep, so
 * `JSON.stringify` writes it.
 */
const columns =
  "event_id, timestamp, event_type, platform, cloud, resource_type, resource_id, project_id, source, payload";

// A value holding no quote (almost every one but the payload) is written without the replacing pass.
const field = (v: string) => (v.includes('"') ? `"${v.replaceAll('"', '""')}"` : `"${v}"`);

/** The events as CSV lines in the column order of the COPY. */
export function eventsCsv(events: readonly CanonicalEvent[]): string {
  let text = "";
  for (const e of events) {
    text += `${field(e.event_id)},${field(e.timestamp)},${field(e.event_type)},${field(e.platform)},${field(e.cloud)},${field(e.resource_type)},${field(e.resource_id)},${field(e.project_id)},${field(e.source)},${field(JSON.stringify(e.payload))}\n`;
  }
  return text;
}

/** One COPY of `csv` (made by `eventsCsv`) into `events`, inside the caller's transaction or not. */
export function copyEventsCsv(sql: Pick<TransactionSql, "unsafe">, csv: string): Promise<void> {
  return copyIn(sql, `copy events (${columns}) from stdin with (format csv)`, csv);
}
