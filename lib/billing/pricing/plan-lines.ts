import { amountOf, type Decimal, quantityOf, sum, zero } from "../../foundation/money/decimal.ts";
import { denominatorOf, dimensionOf } from "./dimensions.ts";
import type { Minimum, Plan, TierMode, TierSchedule } from "./plans.ts";

/**
 * A plan's lines on a statement (docs/pricing-model.md#plans), pure: the tier lines of its tiered
 * dimensions, then the top-ups of its minimums. They come after the rated lines and before the
 * relations' adjustments, which apply to them as to any cost (decision 461).
 */

/** A statement's usage of one dimension: its rated lines' numerators and priced amounts, summed exactly. */
export interface DimensionUsage {
  platform: string;
  resource_type: string;
  dimension: string;
  /** Σ usage (unit-milliseconds, or bytes). */
  numerator: Decimal;
  /** Σ usage × list price (the lines' `priced`). */
  priced: Decimal;
}

/** Adds `u` to the usage of its dimension in `usage` (summing into the one held, else a copy). */
export function addDimensionUsage(usage: DimensionUsage[], u: DimensionUsage): void {
  const held = usage.find(
    (x) => x.platform === u.platform && x.resource_type === u.resource_type && x.dimension === u.dimension,
  );
  if (held === undefined) usage.push({ ...u });
  else {
    held.numerator = held.numerator.plus(u.numerator);
    held.priced = held.priced.plus(u.priced);
  }
}

/** A statement's cost of one platform and resource type (a bucket). */
export interface TypeCost {
  platform: string;
  resource_type: string;
  amount: Decimal;
}

/** One tier a tiered quantity reached: how much of the quantity it took and at what price. */
export interface TierBand {
  /** The tier's bound in the dimension's unit, null for the last. */
  up_to: Decimal | null;
  quantity: Decimal;
  unit_price: Decimal;
}

export interface TierLine {
  platform: string;
  resource_type: string;
  dimension: string;
  mode: TierMode;
  /** The statement's quantity of the dimension, six places. */
  quantity: Decimal;
  bands: TierBand[];
  /**
   * The tiers' price of the quantity less the list price of the same usage (both exact), rounded once:
   * negative when the tiers cost less than the rated lines bill. A schedule that repeats the list price
   * gives 0.00 exactly.
   */
  amount: Decimal;
}

export interface MinimumLine {
  scope: string;
  platform: string;
  resource_type: string | null;
  minimum: Decimal;
  /** What the scope's buckets came to after the tier lines (and the narrower top-ups). */
  usage: Decimal;
  /** `max(0, minimum − usage)`: never negative, so a minimum never lowers a bill. */
  amount: Decimal;
}

export interface PlanLines {
  tiers: TierLine[];
  minimums: MinimumLine[];
}

/** The bucket (resource type) a platform-wide minimum's top-up is billed under: it is no type's usage. */
export const commitmentType = "commitment";

/**
 * A quantity priced by a tier schedule, in numerator terms (a bound of `up_to` units is
 * `up_to × denominator`): graduated, each band's share of the quantity at the band's price; volume, the
 * whole quantity at the price of the band it reaches. A quantity on a bound belongs to the band it
 * closes. Returns `Σ numerator × price` (exact) and the bands reached.
 */
export function priceTiers(
  schedule: Pick<TierSchedule, "mode" | "tiers">,
  numerator: Decimal,
  denominator: Decimal,
): { priced: Decimal; bands: TierBand[] } {
  const bands: TierBand[] = [];
  let priced = zero;
  let below = zero;
  for (const tier of schedule.tiers) {
    const bound = tier.up_to === null ? null : tier.up_to.times(denominator);
    if (schedule.mode === "volume") {
      if (bound === null || numerator.lte(bound)) {
        bands.push({
          up_to: tier.up_to,
          quantity: quantityOf(numerator, denominator),
          unit_price: tier.price,
        });
        return { priced: numerator.times(tier.price), bands };
      }
      continue;
    }
    const top = bound === null || numerator.lt(bound) ? numerator : bound;
    const part = top.minus(below);
    if (part.gt(0)) {
      bands.push({ up_to: tier.up_to, quantity: quantityOf(part, denominator), unit_price: tier.price });
      priced = priced.plus(part.times(tier.price));
    }
    if (bound === null || numerator.lte(bound)) break;
    below = bound;
  }
  return { priced, bands };
}

const coveredBy = (minimum: Minimum, cost: TypeCost) =>
  cost.platform === minimum.platform &&
  (minimum.resource_type === null || cost.resource_type === minimum.resource_type);

/**
 * The plan's lines on one statement and the statement's buckets with them added: a tier line in its
 * dimension's bucket; a type's top-up in the type's bucket; a platform's top-up in the platform's
 * `commitment` bucket. Minimums of a type come before those of a platform, whose usage counts the
 * type's top-ups: a commitment to spend on a type is spending on the platform.
 */
export function applyPlan(
  plan: Plan,
  usage: readonly DimensionUsage[],
  buckets: readonly TypeCost[],
): { lines: PlanLines; buckets: TypeCost[] } {
  const out = buckets.map((b) => ({ ...b }));
  const add = (platform: string, resourceType: string, amount: Decimal) => {
    const held = out.find((b) => b.platform === platform && b.resource_type === resourceType);
    if (held !== undefined) held.amount = held.amount.plus(amount);
    else out.push({ platform, resource_type: resourceType, amount });
  };
  const tiers: TierLine[] = [];
  for (const schedule of plan.tiered) {
    const used = usage.find(
      (u) =>
        u.platform === schedule.platform &&
        u.resource_type === schedule.resource_type &&
        u.dimension === schedule.dimension,
    );
    const dimension = dimensionOf(schedule.resource_type, schedule.dimension);
    if (used === undefined || used.numerator.eq(0) || dimension === undefined) continue;
    const denominator = denominatorOf(dimension);
    const { priced, bands } = priceTiers(schedule, used.numerator, denominator);
    const amount = amountOf(priced.minus(used.priced), denominator);
    tiers.push({
      platform: schedule.platform,
      resource_type: schedule.resource_type,
      dimension: schedule.dimension,
      mode: schedule.mode,
      quantity: quantityOf(used.numerator, denominator),
      bands,
      amount,
    });
    add(schedule.platform, schedule.resource_type, amount);
  }
  const minimums: MinimumLine[] = [];
  const ordered = [
    ...plan.minimums.filter((m) => m.resource_type !== null),
    ...plan.minimums.filter((m) => m.resource_type === null),
  ];
  for (const minimum of ordered) {
    const spent = sum(out.filter((b) => coveredBy(minimum, b)).map((b) => b.amount));
    const short = minimum.amount.minus(spent);
    const amount = short.gt(0) ? short : zero;
    minimums.push({
      scope: minimum.scope,
      platform: minimum.platform,
      resource_type: minimum.resource_type,
      minimum: minimum.amount,
      usage: spent,
      amount,
    });
    if (amount.gt(0)) add(minimum.platform, minimum.resource_type ?? commitmentType, amount);
  }
  return { lines: { tiers, minimums }, buckets: out };
}
