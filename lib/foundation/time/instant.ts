/**
 * Instants travel as canonical strings `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC, millisecond precision), the
 * form `Date.prototype.toISOString` writes. In that form string order is time order, so folds and
 * sorts compare strings. Sub-millisecond digits are truncated (docs/decisions/).
 */
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The instant an RFC 3339 date-time with an explicit offset names, in ms; null for anything else. */
function rfc3339Ms(value: string): number | null {
  const m = rfc3339.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m;
  const ms = Date.parse(value.replace(" ", "T"));
  if (Number.isNaN(ms)) return null;
  // Year 0000 (1 BC) is a date PostgreSQL cannot take as written; 0001 to 0099 are real years.
  if (Number(y) === 0) return null;
  // Date.parse rolls 2026-02-30 over to March: check the calendar fields survive. setUTCFullYear, as
  // Date.UTC would read years 0 to 99 as 1900 to 1999.
  const check = new Date(0);
  check.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  check.setUTCHours(Number(h), Number(mi), Number(s));
  const real =
    check.getUTCFullYear() === Number(y) &&
    check.getUTCMonth() === Number(mo) - 1 &&
    check.getUTCDate() === Number(d) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s) < 60;
  return real ? ms : null;
}

/** True for an RFC 3339 date-time with an explicit offset (`Z` or `±hh:mm`) that names a real instant. */
export function isRfc3339(value: string): boolean {
  return rfc3339Ms(value) !== null;
}

/** Canonical form of an RFC 3339 instant, or null for anything else (one parse, for hot paths). */
export function parseInstant(value: string): string | null {
  const ms = rfc3339Ms(value);
  return ms === null ? null : new Date(ms).toISOString();
}

/** Canonical form of an RFC 3339 instant; throws RangeError on anything else. */
export function canonicalInstant(value: string): string {
  const instant = parseInstant(value);
  if (instant === null) throw new RangeError("not an RFC 3339 date-time with offset");
  return instant;
}

export function instantFromMs(ms: number): string {
  return new Date(ms).toISOString();
}

export function msOf(instant: string): number {
  return Date.parse(instant);
}
