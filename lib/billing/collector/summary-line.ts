/**
 * The `summary` log line (docs/collector.md#the-summary-line, with how to read it):
 * every `SVC_OSC_SUMMARY_INTERVAL_S` seconds, the counts since the previous line and the outbox as it
 * stands. `oldest_buffered_seconds` is 0 for an empty outbox and absent when it cannot be read.
 */
import type { IntervalCounts } from "./collector-counts.ts";

interface SummaryLine extends IntervalCounts {
  interval_seconds: number;
  connected: boolean;
  buffered: number;
  oldest_buffered_seconds?: number;
}

interface SummaryInput {
  intervalSeconds: number;
  connected: boolean;
  counts: IntervalCounts;
  buffered: number;
  /** When the oldest buffered event was committed (ms); null when empty; undefined when unreadable. */
  oldestBufferedAt: number | null | undefined;
  now: number;
}

export function summaryLine(input: SummaryInput): SummaryLine {
  const line: SummaryLine = {
    interval_seconds: input.intervalSeconds,
    connected: input.connected,
    consumed: input.counts.consumed,
    skipped: input.counts.skipped,
    unparseable: input.counts.unparseable,
    delivered: input.counts.delivered,
    delivery_errors: input.counts.delivery_errors,
    buffered: input.buffered,
  };
  if (input.oldestBufferedAt === null) line.oldest_buffered_seconds = 0;
  else if (input.oldestBufferedAt !== undefined)
    line.oldest_buffered_seconds = Math.max(0, Math.floor((input.now - input.oldestBufferedAt) / 1000));
  return line;
}
