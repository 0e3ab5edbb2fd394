import { parseInstant } from "../../foundation/time/instant.ts";
import { threeDigitText, utcDateTime, utcMillis } from "../../foundation/time/utc-text.ts";

/** oslo's `timeutils.utcnow()` rendering: UTC, a space between date and time, no offset. */
const osloForm = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days of a month of the proleptic Gregorian calendar, as `Date` counts them. */
function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (monthDays[month - 1] ?? 0);
}

/**
 * Canonical instant of a notification timestamp, or null when it names none. oslo writes
 * `2026-10-03 12:00:05.123456` in UTC without an offset; some services send RFC 3339. Microseconds
 * are truncated to the canonical millisecond (decision 2, docs/decisions/).
 *
 * The oslo form is checked and rewritten field by field rather than through `Date` (decision 280):
 * every notification the collector maps goes through here, and the round trip through a `Date` was
 * about 2 µs of the collector's ~12 µs per notification. Whatever is not the oslo form goes to
 * `parseInstant`; the test holds both readings equal.
 */
export function osloInstant(value: string): string | null {
  const m = osloForm.exec(value);
  if (m === null) return parseInstant(value);
  const [, y = "", mo = "", d = "", h = "", mi = "", s = "", fraction] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  // Year 0000 is refused as parseInstant refuses it: PostgreSQL cannot take it as written.
  const real =
    year !== 0 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s) < 60;
  if (!real) return null;
  const millis = fraction === undefined ? "000" : fraction.slice(0, 3).padEnd(3, "0");
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}Z`;
}

/**
 * The oslo rendering of an instant given as epoch milliseconds plus extra microseconds (0–999); with
 * separator `T`, the ISO form of a request context's `timestamp`.
 */
export function osloTimestamp(ms: number, micros: number, separator = " "): string {
  return `${utcDateTime(ms, separator)}.${utcMillis(ms)}${threeDigitText(micros)}`;
}
