import type { Period } from "../../foundation/time/period.ts";
import { counterIncrease } from "./counter-increase.ts";
import type { CounterSource } from "./counter-sources.ts";
import { type CounterStore, CounterStoreUnavailable } from "./counter-store.ts";
import type { MeteredResource } from "./meter-resource.ts";

/**
 * Reads the counters a batch of metered resources needs and writes, per interval, the bytes each
 * counter dimension moved over it. One read per source and cloud for the whole batch. A store that
 * cannot be read leaves those intervals without the reading and returns the resources it failed for
 * (a `counter` warning each; the rating then bills nothing for that dimension and the run says to rerun).
 * A resource the store has no series for moved no bytes.
 */
export async function attachCounters(
  batch: readonly MeteredResource[],
  sources: readonly CounterSource[],
  store: CounterStore,
  period: Period,
): Promise<Set<MeteredResource>> {
  const failed = new Set<MeteredResource>();
  const window = { fromMs: Date.parse(period.from), toMs: Date.parse(period.to) };
  for (const source of sources) {
    const byCloud = new Map<string, MeteredResource[]>();
    for (const r of batch) {
      if (r.platform !== source.platform || r.resource_type !== source.resource_type) continue;
      const list = byCloud.get(r.cloud) ?? [];
      list.push(r);
      byCloud.set(r.cloud, list);
    }
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
        for (const r of resources) failed.add(r);
        continue;
      }
      for (const r of resources) {
        const series = samples.get(r.resource_id) ?? { timestamps: [], values: [] };
        for (const interval of r.intervals) {
          interval.counters = {
            ...interval.counters,
            [source.dimension]: counterIncrease(series, Date.parse(interval.from), Date.parse(interval.to)),
          };
        }
      }
    }
  }
  return failed;
}
