/** Samples of one cumulative counter, timestamps ascending (epoch milliseconds). */
export interface CounterSamples {
  timestamps: readonly number[];
  values: readonly number[];
}

/**
 * What a cumulative counter moved over [from, to) (pure): from the last sample at or before `from`
 * (none: the counter started at 0 inside the span) to the last sample at or before `to`, summing the
 * steps between, and a drop counts as a reset to 0 (the process restarted), as Prometheus' `increase`
 * does but without extrapolation. Samples exactly on the boundaries make the result exact.
 */
export function counterIncrease(samples: CounterSamples, from: number, to: number): number {
  const { timestamps, values } = samples;
  let i = 0;
  let previous = 0;
  while (i < timestamps.length && (timestamps[i] as number) <= from) {
    previous = values[i] as number;
    i += 1;
  }
  let moved = 0;
  while (i < timestamps.length && (timestamps[i] as number) <= to) {
    const value = values[i] as number;
    moved += value >= previous ? value - previous : value;
    previous = value;
    i += 1;
  }
  return moved;
}
