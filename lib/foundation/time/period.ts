import { instantFromMs } from "./instant.ts";

/** A billing period: one UTC calendar month, half-open [from, to). */
export interface Period {
  /** `YYYY-MM` */
  name: string;
  from: string;
  to: string;
}

const periodPattern = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** Parses `YYYY-MM`; throws RangeError naming the expected form. */
export function parsePeriod(name: string): Period {
  const m = periodPattern.exec(name);
  if (!m) throw new RangeError(`a period is written YYYY-MM, got ${JSON.stringify(name)}`);
  const year = Number(m[1]);
  const month = Number(m[2]) - 1;
  return {
    name,
    from: instantFromMs(Date.UTC(year, month, 1)),
    to: instantFromMs(Date.UTC(year, month + 1, 1)),
  };
}

/** True when the whole month lies before `now`. */
export function hasEnded(period: Period, now: Date): boolean {
  return Date.parse(period.to) <= now.getTime();
}
