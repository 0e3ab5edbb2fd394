import { type CounterSamples, counterIncrease } from "./counter-increase.ts";
import type { CounterSource } from "./counter-sources.ts";
import type { MeteredResource } from "./meter-resource.ts";

/**
 * What the counters of a batch of metered resources read: per source (in the sources' order), the
 * samples of each resource it covers, and the resources whose read failed.
 */
export interface CounterReadings {
  samples: Map<CounterSource, Map<MeteredResource, CounterSamples>>;
  failed: Set<MeteredResource>;
}

/**
 * Writes onto each interval of the resources read (pure), per counter dimension, the bytes the counter
 * moved over it: its last sample at or before the interval's end less its last at or before its start.
 */
export function attachCounters(readings: CounterReadings): void {
  for (const [source, read] of readings.samples) {
    for (const [resource, series] of read) {
      for (const interval of resource.intervals) {
        interval.counters = {
          ...interval.counters,
          [source.dimension]: counterIncrease(series, Date.parse(interval.from), Date.parse(interval.to)),
        };
      }
    }
  }
}
