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
import { splitAt, tariffAt } from "./tariff.ts";

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
  /**
   * The price of a unit; for a line whose usage met several prices (an attribute or a price period
   * changed within it) their average over the usage, six places, for people.
   */
  unit_price: Decimal;
  /** `Σ usage × price`, exact: the amount before its one division and rounding (tiers need it). */
  priced: Decimal;
  /** `priced / denominator`, rounded once to cents. */
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
 * A line while it is summed: its usage at the first price it met and, only once it meets another, per
 * further price (a price object of the model, by identity). Nearly every line meets one price, and a
 * map per line would be garbage a month makes hundreds of thousands of (decision 433).
 */
interface LineSum {
  project_id: string;
  dimension: string;
  price: Decimal;
  usage: Usage;
  others: Map<Decimal, Usage> | null;
}

/**
 * Rates one resource's intervals with a pricing model (pure): per interval, the tariff in effect (the
 * price period its start lies in, the prices its attribute chooses: `tariff.ts`), the dimensions its
 * state bills, each measured as the catalog says (lib/billing/pricing/dimensions.ts), summed per
 * project and dimension, and priced once per sum (Σ usage × price, divided and rounded once). Intervals
 * that cross a price change are split there first. The engine rates a metered history with it and
 * `scenario explain` rates the oracle's intervals with it. Lines with no usage are left out; lines come
 * ordered by project, then dimension.
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
  const sums = new Map<string, LineSum>();
  const note = (list: string[], item: string) => {
    if (!list.includes(item)) list.push(item);
  };
  for (const interval of splitAt(intervals, model.changes)) {
    const state = interval.state ?? "";
    const tariff = tariffAt(pricing, Date.parse(interval.from), interval.size);
    const billed = tariff.states.get(state);
    if (billed === undefined) {
      note(rating.unknownStates, state);
      continue;
    }
    const ms = Date.parse(interval.to) - Date.parse(interval.from);
    for (const name of billed) {
      const dimension = dimensionOf(resource.resource_type, name);
      const price = tariff.prices.get(name);
      if (dimension === undefined || price === undefined) continue;
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
      if (entry === undefined) {
        sums.set(key, { project_id: interval.project_id, dimension: name, price, usage, others: null });
      } else if (entry.price === price) entry.usage = usageSum(entry.usage, usage);
      else {
        entry.others ??= new Map();
        const held = entry.others.get(price);
        entry.others.set(price, held === undefined ? usage : usageSum(held, usage));
      }
    }
  }
  for (const entry of sums.values()) {
    const dimension = dimensionOf(resource.resource_type, entry.dimension);
    if (dimension === undefined) continue;
    let numerator = usageDecimal(entry.usage);
    let priced = numerator.times(entry.price);
    for (const [price, part] of entry.others ?? []) {
      const exact = usageDecimal(part);
      numerator = numerator.plus(exact);
      priced = priced.plus(exact.times(price));
    }
    if (numerator.eq(0)) continue;
    const denominator = denominatorOf(dimension);
    rating.lines.push({
      project_id: entry.project_id,
      dimension: entry.dimension,
      numerator,
      quantity: quantityOf(numerator, denominator),
      unit_price: entry.others === null ? entry.price : quantityOf(priced, numerator),
      priced,
      amount: amountOf(priced, denominator),
    });
  }
  rating.lines.sort((a, b) =>
    a.project_id === b.project_id ? compare(a.dimension, b.dimension) : compare(a.project_id, b.project_id),
  );
  return rating;
}
