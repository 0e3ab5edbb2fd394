import { parseInstant } from "../time/instant.ts";
import { threeDigitText, utcDateTime, utcMillis } from "../time/utc-text.ts";

/** oslo's `timeutils.utcnow()` rendering: UTC, a space between date and time, no offset. */
const osloForm = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;

/**
 * Canonical instant of a notification timestamp, or null when it names none. oslo writes
 * `2026-10-03 12:00:05.123456` in UTC without an offset; some services send RFC 3339. Microseconds
 * are truncated to the canonical millisecond (docs/decisions.md 2).
 */
export function osloInstant(value: string): string | null {
  const candidate = osloForm.test(value) ? `${value.replace(" ", "T")}Z` : value;
  return parseInstant(candidate);
}

/**
 * The oslo rendering of an instant given as epoch milliseconds plus extra microseconds (0–999); with
 * separator `T`, the ISO form of a request context's `timestamp`.
 */
export function osloTimestamp(ms: number, micros: number, separator = " "): string {
  return `${utcDateTime(ms, separator)}.${utcMillis(ms)}${threeDigitText(micros)}`;
}
