import type { Interval } from "./fold.ts";

/**
 * The parts of `intervals` inside the window [from, to); an open interval runs to the window's end.
 * Nothing of zero length is returned, so a window with `from` at or after `to` holds nothing.
 */
export function clipIntervals(intervals: readonly Interval[], from: string, to: string): Interval[] {
  const clipped: Interval[] = [];
  for (const interval of intervals) {
    const start = interval.from > from ? interval.from : from;
    const end = interval.to === null || interval.to > to ? to : interval.to;
    if (start < end) clipped.push({ ...interval, from: start, to: end });
  }
  return clipped;
}
