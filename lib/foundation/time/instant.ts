/**
 * Instants travel as canonical strings `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC, millisecond precision), the
 * form `Date.prototype.toISOString` writes. In that form string order is time order, so folds and
 * sorts compare strings. Sub-millisecond digits are truncated (docs/decisions/).
 *
 * `readInstant` is the one reader of a date-time a caller gives us (decision 15): every route, command
 * and ingest item takes its date-times through it, so what is accepted is the same everywhere and
 * nothing but its canonical form travels on (PostgreSQL never parses a caller's text: it takes offsets
 * only up to ±15:59 and years only up to 294276, and fails the statement on the rest).
 */
const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Digits of a second's fraction taken at most: nanoseconds, the finest any clock we meet writes. */
const maxFractionDigits = 9;

const dayMs = 86_400_000;

/** What a refused date-time is told; each completes "<member> …". */
export const instantRefusals = {
  shape:
    "must be an RFC 3339 date-time with an offset, such as 2026-11-01T10:00:00Z or 2026-11-01T11:00:00+01:00",
  fraction: `must give at most ${maxFractionDigits} digits of a second's fraction`,
  calendar:
    "must name a real date and time (month 01-12, a day the month has, hour 00-23, minute and second 00-59)",
  offset: "must have an offset from -23:59 to +23:59",
  range: "must fall within the years 0001 to 9999 once its offset is applied (UTC)",
} as const;

type InstantReading = { ok: true; instant: string } | { ok: false; refusal: string };

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

const firstMs = daysFromCivil(1, 1, 1) * dayMs;
const endMs = daysFromCivil(10_000, 1, 1) * dayMs;

/** 0001-01-01T00:00:00Z, the earliest instant taken: a window reaching back from an early instant stops here. */
export const earliestInstantMs = firstMs;

/**
 * A caller's RFC 3339 date-time as a canonical instant, or why it is refused. Accepted: `T`, `t` or a
 * space between date and time; `Z`, `z` or any offset RFC 3339 allows (±00:00 to ±23:59); a fraction
 * of 1 to 9 digits, truncated to the millisecond; a real calendar date; an instant in the years 0001
 * to 9999 once the offset is applied. Refused: everything else, leap seconds (`:60`) included.
 */
export function readInstant(value: string): InstantReading {
  const m = rfc3339.exec(value);
  if (m === null) return { ok: false, refusal: instantRefusals.shape };
  const [, ys = "", mos = "", ds = "", hs = "", mis = "", ss = "", fraction, sign, ohs = "", oms = ""] = m;
  if (fraction !== undefined && fraction.length > maxFractionDigits) {
    return { ok: false, refusal: instantRefusals.fraction };
  }
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return { ok: false, refusal: instantRefusals.calendar };
  }
  const offsetHours = Number(ohs);
  const offsetMinutes = Number(oms);
  if (offsetHours > 23 || offsetMinutes > 59) return { ok: false, refusal: instantRefusals.offset };
  const millis = fraction === undefined ? "000" : fraction.slice(0, 3).padEnd(3, "0");
  const offsetMs = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms =
    daysFromCivil(year, month, day) * dayMs +
    ((hour * 60 + minute) * 60 + second) * 1000 +
    Number(millis) -
    offsetMs;
  if (ms < firstMs || ms >= endMs) return { ok: false, refusal: instantRefusals.range };
  // An instant written in UTC is already its canonical form, digit for digit.
  const instant =
    offsetMs === 0 ? `${ys}-${mos}-${ds}T${hs}:${mis}:${ss}.${millis}Z` : new Date(ms).toISOString();
  return { ok: true, instant };
}

/** True for a date-time `readInstant` accepts. */
export function isRfc3339(value: string): boolean {
  return readInstant(value).ok;
}

/** Canonical form of a date-time `readInstant` accepts, or null for anything else. */
export function parseInstant(value: string): string | null {
  const reading = readInstant(value);
  return reading.ok ? reading.instant : null;
}

/** Canonical form of a date-time `readInstant` accepts; a RangeError saying why for anything else. */
export function canonicalInstant(value: string): string {
  const reading = readInstant(value);
  if (!reading.ok) throw new RangeError(reading.refusal);
  return reading.instant;
}

export function instantFromMs(ms: number): string {
  return new Date(ms).toISOString();
}

export function msOf(instant: string): number {
  return Date.parse(instant);
}
