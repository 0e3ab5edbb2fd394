import type { Period } from "../../foundation/time/period.ts";
import { attachCounters, type CounterReadings } from "../metering/attach-counters.ts";
import type { CounterSource } from "../metering/counter-sources.ts";
import type { CounterStore } from "../metering/counter-store.ts";
import { type MeteredResource, type MonthEvent, meterMonth } from "../metering/meter-resource.ts";
import type { RunWarnings } from "../metering/run-warnings.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import { type ResourceRating, rateResource } from "../pricing/rate-resource.ts";

/** The counter sources and the store they are read from, when the environment names them. */
export interface CounterSetup {
  sources: readonly CounterSource[];
  store: CounterStore;
}

/** The counters of a batch of metered resources, read (by the month's reader) for the resources named. */
export type CounterRead = (batch: readonly MeteredResource[]) => Promise<CounterReadings>;

/** What a month is metered from: its events in resource order and, when configured, its counters. */
export interface MonthRows {
  rows: AsyncIterable<readonly MonthEvent[]>;
  counters: CounterRead | null;
}

export interface RateOptions {
  period: Period;
  model: PricingModel;
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
 * resources (one counter read per batch): memory holds one resource's history and one batch. Pure but
 * for what it awaits from `month`, its input: the rows, and each batch's counters. A run writes each
 * batch out, a correction diffs it against the lines that stand; both count the same warnings
 * (docs/engine.md#warnings) into `tally`.
 */
export async function* rateMonth(
  month: MonthRows,
  options: RateOptions,
  tally: MonthTally,
): AsyncGenerator<RatedResource[]> {
  const { warnings, counts } = tally;
  const rate = async (batch: MeteredResource[]): Promise<RatedResource[]> => {
    let failed: ReadonlySet<MeteredResource> = new Set();
    if (month.counters !== null) {
      const readings = await month.counters(batch);
      attachCounters(readings);
      failed = readings.failed;
    }
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
  for await (const resource of meterMonth(month.rows, options.period, counts, options.model.changes)) {
    batch.push(resource);
    if (batch.length >= counterBatch) {
      yield await rate(batch);
      batch = [];
    }
  }
  if (batch.length > 0) yield await rate(batch);
}
