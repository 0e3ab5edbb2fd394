import type { Period } from "../../foundation/time/period.ts";
import { attachCounters } from "../metering/attach-counters.ts";
import type { CounterSource } from "../metering/counter-sources.ts";
import type { CounterStore } from "../metering/counter-store.ts";
import { type MeteredResource, type MonthEvent, meterMonth } from "../metering/meter-resource.ts";
import type { RunWarnings } from "../metering/run-warnings.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import { type ResourceRating, rateResource } from "../pricing/rate-resource.ts";

export interface CounterSetup {
  sources: readonly CounterSource[];
  store: CounterStore;
}

export interface RateOptions {
  period: Period;
  model: PricingModel;
  counters: CounterSetup | null;
}

export type MonthCounts = {
  /** Resources whose history was read. */
  resources: number;
  /** Resources with something inside the period. */
  candidates: number;
  usage_records: number;
  rated_records: number;
};

/** What metering a month counted: the warnings and the counts a run or a correction prints. */
export interface MonthTally {
  warnings: RunWarnings;
  counts: MonthCounts;
}

export interface RatedResource {
  resource: MeteredResource;
  rating: ResourceRating;
}

/** Resources metered before their counters are read in one go. */
const counterBatch = 1_000;

/**
 * A month read in resource order, metered, given its counters and rated, in batches of up to 1,000
 * resources (one counter read per batch): memory holds one resource's history and one batch. A run
 * writes each batch out, a correction diffs it against the run it corrects; both count the same
 * warnings (docs/engine.md#warnings) into `tally`.
 */
export async function* rateMonth(
  rows: AsyncIterable<readonly MonthEvent[]>,
  options: RateOptions,
  tally: MonthTally,
): AsyncGenerator<RatedResource[]> {
  const { warnings, counts } = tally;
  const rate = async (batch: MeteredResource[]): Promise<RatedResource[]> => {
    const failed =
      options.counters === null
        ? new Set<MeteredResource>()
        : await attachCounters(batch, options.counters.sources, options.counters.store, options.period);
    return batch.map((resource) => {
      if (resource.intervals.length > 0) counts.candidates += 1;
      if (resource.starts_without_create) warnings.add("history_starts_without_create");
      const rating = rateResource(options.model, resource, resource.intervals);
      if (rating.unpriced) warnings.add("resource_type_not_priced");
      if (rating.unknownStates.length > 0) warnings.add("state_not_priced");
      if (rating.unreadable.length > 0) warnings.add("size_member_unreadable");
      if (failed.has(resource)) warnings.add("counter_store_unreachable");
      else if (rating.missingCounters.length > 0) warnings.add("counter_source_missing");
      counts.usage_records += resource.intervals.length;
      counts.rated_records += rating.lines.length;
      return { resource, rating };
    });
  };
  let batch: MeteredResource[] = [];
  for await (const resource of meterMonth(rows, options.period, counts)) {
    batch.push(resource);
    if (batch.length >= counterBatch) {
      yield await rate(batch);
      batch = [];
    }
  }
  if (batch.length > 0) yield await rate(batch);
}
