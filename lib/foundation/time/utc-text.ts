/**
 * The UTC date and time of an instant in `toISOString`'s digits, without a Date and a string to cut
 * up per call: the simulator writes four to six of them into each of a month's notifications
 * (decision 249). The date is cached per day, the rest is read from digit tables. Years 0000 to 9999,
 * where `toISOString` writes four-digit years; a RangeError outside them, as for an invalid instant.
 */
const dayMs = 86_400_000;
const minMs = Date.parse("0000-01-01T00:00:00Z");
const endMs = Date.parse("+010000-01-01T00:00:00Z");

const pad = (n: number, width: number) => String(n).padStart(width, "0");
const twoDigits = Array.from({ length: 60 }, (_, n) => pad(n, 2));
const threeDigits = Array.from({ length: 1000 }, (_, n) => pad(n, 3));

/** Days to `YYYY-MM-DD`; a month's notifications touch a few dozen, a long run a few thousand at most. */
const dates = new Map<number, string>();

function checked(ms: number): number {
  const whole = Math.trunc(ms);
  if (!(whole >= minMs && whole < endMs)) throw new RangeError(`instant out of range: ${ms}`);
  return whole;
}

function dateOf(day: number): string {
  let text = dates.get(day);
  if (text === undefined) {
    if (dates.size >= 4096) dates.clear();
    text = new Date(day * dayMs).toISOString().slice(0, 10);
    dates.set(day, text);
  }
  return text;
}

/** `YYYY-MM-DD<separator>HH:MM:SS` of epoch milliseconds (fractions of a millisecond dropped, as Date does). */
export function utcDateTime(ms: number, separator: string): string {
  const whole = checked(ms);
  const day = Math.floor(whole / dayMs);
  const seconds = Math.floor((whole - day * dayMs) / 1000);
  const minutes = Math.floor(seconds / 60);
  return `${dateOf(day)}${separator}${twoDigits[Math.floor(minutes / 60)]}:${twoDigits[minutes % 60]}:${twoDigits[seconds % 60]}`;
}

/** The milliseconds of epoch milliseconds within their second, three digits. */
export function utcMillis(ms: number): string {
  const whole = checked(ms);
  return threeDigits[whole - Math.floor(whole / 1000) * 1000] as string;
}

/** `n` as three digits when it is an integer from 0 to 999; otherwise as `padStart` writes it. */
export function threeDigitText(n: number): string {
  return threeDigits[n] ?? pad(n, 3);
}
