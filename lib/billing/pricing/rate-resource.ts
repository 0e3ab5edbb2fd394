import { compare } from "../../foundation/collections/compare.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import {
  amountOf,
  type Decimal,
  quantityOf,
  type Usage,
  usageDecimal,
  usageProduct,
  usageSum,
} from "../../foundation/money/decimal.ts";
import { denominatorOf, dimensionOf } from "./dimensions.ts";
import { type PricingModel, typePricing } from "./pricing-model.ts";

/** One span of a resource inside the period: half-open, closed (the period's end closes an open one). */
export interface RatedInterval {
  from: string;
  to: string;
  state: string | null;
  project_id: string;
  size: JsonObject | null;
  /** Bytes its counters moved over the span, per counter dimension; absent when not read. */
  counters?: Readonly<Record<string, number>>;
}

/** One rated record: a resource's usage of one dimension while one project owned it. */
export interface RatedLine {
  project_id: string;
  dimension: string;
  /** Exact usage in unit-milliseconds (or bytes for a counter): the line's only unrounded number. */
  numerator: Decimal;
  /** Usage in the unit the price is quoted in, six places, for people. */
  quantity: Decimal;
  unit_price: Decimal;
  /** `numerator × unit_price / denominator`, rounded once to cents. */
  amount: Decimal;
}

export interface ResourceRating {
  lines: RatedLine[];
  /** The model prices nothing of this platform and resource type. */
  unpriced: boolean;
  /** States of the resource the model does not name (they bill nothing). */
  unknownStates: string[];
  /** Size members a billed dimension needed and could not read as a non-negative number. */
  unreadable: string[];
  /** Counter dimensions a billed interval needed and had no reading for. */
  missingCounters: string[];
}

function sizeMember(size: JsonObject | null, member: string): number | null {
  const value = size?.[member];
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return null;
  return value;
}

/**
 * Rates one resource's intervals with a pricing model (pure): per interval, the dimensions its state
 * bills, each measured as the catalog says (lib/billing/pricing/dimensions.ts), summed per project and
 * dimension, and priced once per sum. The engine rates a metered history with it and `simulator
 * compare` rates the oracle's intervals with it, so the two can only differ where their intervals do.
 * Lines with no usage are left out; lines come ordered by project, then dimension.
 */
export function rateResource(
  model: PricingModel,
  resource: { platform: string; resource_type: string },
  intervals: readonly RatedInterval[],
): ResourceRating {
  const rating: ResourceRating = {
    lines: [],
    unpriced: false,
    unknownStates: [],
    unreadable: [],
    missingCounters: [],
  };
  const pricing = typePricing(model, resource.platform, resource.resource_type);
  if (pricing === null) {
    rating.unpriced = intervals.length > 0;
    return rating;
  }
  const sums = new Map<string, { project_id: string; dimension: string; numerator: Usage }>();
  const note = (list: string[], item: string) => {
    if (!list.includes(item)) list.push(item);
  };
  for (const interval of intervals) {
    const state = interval.state ?? "";
    const billed = pricing.states.get(state);
    if (billed === undefined) {
      note(rating.unknownStates, state);
      continue;
    }
    const ms = Date.parse(interval.to) - Date.parse(interval.from);
    for (const name of billed) {
      const dimension = dimensionOf(resource.resource_type, name);
      if (dimension === undefined) continue;
      let usage: Usage;
      const source = dimension.source;
      if (source.kind === "hours") usage = ms;
      else if (source.kind === "size") {
        const per = sizeMember(interval.size, source.member);
        if (per === null) {
          note(rating.unreadable, source.member);
          continue;
        }
        usage = usageProduct(per, ms);
      } else {
        const bytes = interval.counters?.[name];
        if (bytes === undefined) {
          note(rating.missingCounters, name);
          continue;
        }
        usage = usageProduct(bytes, 1);
      }
      const key = `${interval.project_id}\u0000${name}`;
      const entry = sums.get(key);
      if (entry === undefined)
        sums.set(key, { project_id: interval.project_id, dimension: name, numerator: usage });
      else entry.numerator = usageSum(entry.numerator, usage);
    }
  }
  for (const { project_id, dimension: name, numerator: usage } of sums.values()) {
    const numerator = usageDecimal(usage);
    if (numerator.eq(0)) continue;
    const dimension = dimensionOf(resource.resource_type, name);
    const price = pricing.prices.get(name);
    if (dimension === undefined || price === undefined) continue;
    const denominator = denominatorOf(dimension);
    rating.lines.push({
      project_id,
      dimension: name,
      numerator,
      quantity: quantityOf(numerator, denominator),
      unit_price: price,
      amount: amountOf(numerator.times(price), denominator),
    });
  }
  rating.lines.sort((a, b) =>
    a.project_id === b.project_id ? compare(a.dimension, b.dimension) : compare(a.project_id, b.project_id),
  );
  return rating;
}
