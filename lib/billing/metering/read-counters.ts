import type { Period } from "../../foundation/time/period.ts";
import type { CounterReadings } from "./attach-counters.ts";
import type { CounterSamples } from "./counter-increase.ts";
import type { CounterSource } from "./counter-sources.ts";
import { type CounterStore, CounterStoreUnavailable } from "./counter-store.ts";
import type { MeteredResource } from "./meter-resource.ts";

const noSamples: CounterSamples = { timestamps: [], values: [] };

/**
 * Reads the counters a batch of metered resources needs: one read per source and cloud for the whole
 * batch. A store that cannot be read leaves those resources without samples and names them in
 * `failed` (a `counter` warning each; the rating then bills nothing for that dimension and the run says
 * to rerun). A resource the store has no series for has no samples, so it moved no bytes.
 */
export async function readCounters(
  batch: readonly MeteredResource[],
  sources: readonly CounterSource[],
  store: CounterStore,
  period: Period,
): Promise<CounterReadings> {
  const readings: CounterReadings = { samples: new Map(), failed: new Set() };
  const window = { fromMs: Date.parse(period.from), toMs: Date.parse(period.to) };
  for (const source of sources) {
    const byCloud = new Map<string, MeteredResource[]>();
    for (const r of batch) {
      if (r.platform !== source.platform || r.resource_type !== source.resource_type) continue;
      const list = byCloud.get(r.cloud) ?? [];
      list.push(r);
      byCloud.set(r.cloud, list);
    }
    const read = new Map<MeteredResource, CounterSamples>();
    readings.samples.set(source, read);
    for (const [cloud, resources] of byCloud) {
      let samples: Awaited<ReturnType<CounterStore["read"]>>;
      try {
        samples = await store.read(
          source,
          cloud,
          resources.map((r) => r.resource_id),
          window,
        );
      } catch (error) {
        if (!(error instanceof CounterStoreUnavailable)) throw error;
        for (const r of resources) readings.failed.add(r);
        continue;
      }
      for (const r of resources) read.set(r, samples.get(r.resource_id) ?? noSamples);
    }
  }
  return readings;
}
