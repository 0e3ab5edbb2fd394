import { formatMoney, formatQuantity } from "../../foundation/money/decimal.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import { typePricing } from "../pricing/pricing-model.ts";
import { type RatedInterval, rateResource } from "../pricing/rate-resource.ts";
import { attributeOf, epochAt, splitAt, tariffAt } from "../pricing/tariff.ts";

/** One interval of a resource as it was priced: the price period, the attribute value, the prices. */
export interface ExplainedInterval {
  from: string;
  to: string;
  project_id: string;
  state: string | null;
  /** The size member prices are chosen by, what the interval carried and the value it priced as. */
  attribute: { member: string; carried: string | null; value: string | null; priced_as: string } | null;
  /** The price change in effect (its instant), null before the first. */
  price_period_from: string | null;
  /** Each dimension the state bills, with its price. */
  prices: Record<string, string>;
}

/** A rated line and the parts it was made of: one per interval, each at its own price. */
export interface ExplainedLine {
  project_id: string;
  dimension: string;
  quantity: string;
  unit_price: string;
  amount: string;
  parts: { from: string; to: string; quantity: string; unit_price: string }[];
}

/**
 * How one resource's lines were priced (pure; `engine price --explain`, decision 469): each interval
 * (split at the model's price changes) with its tariff, and each line with its parts. The lines are
 * `rateResource`'s own, so they are the ones the run stored; a part is the line of one interval alone.
 */
export function explainResource(
  model: PricingModel,
  resource: { platform: string; resource_type: string },
  intervals: readonly RatedInterval[],
): { intervals: ExplainedInterval[]; lines: ExplainedLine[] } {
  const pricing = typePricing(model, resource.platform, resource.resource_type);
  const split = splitAt(intervals, model.changes);
  const explained = split.map((interval): ExplainedInterval => {
    const ms = Date.parse(interval.from);
    const tariff = pricing === null ? null : tariffAt(pricing, ms, interval.size);
    const billed = tariff?.states.get(interval.state ?? "") ?? [];
    const carried = pricing?.member == null ? null : interval.size?.[pricing.member];
    return {
      from: interval.from,
      to: interval.to,
      project_id: interval.project_id,
      state: interval.state,
      attribute:
        pricing === null || pricing.member === null
          ? null
          : {
              member: pricing.member,
              carried: typeof carried === "string" ? carried : null,
              value: attributeOf(pricing, interval.size),
              priced_as: tariff?.value ?? "the type's own prices",
            },
      price_period_from: pricing === null ? null : epochAt(pricing, ms).from,
      prices: Object.fromEntries(billed.map((d) => [d, tariff?.prices.get(d)?.toFixed() ?? "-"])),
    };
  });
  const parts = split.map((interval) => ({
    interval,
    lines: rateResource(model, resource, [interval]).lines,
  }));
  const lines = rateResource(model, resource, split).lines.map(
    (line): ExplainedLine => ({
      project_id: line.project_id,
      dimension: line.dimension,
      quantity: formatQuantity(line.quantity),
      unit_price: line.unit_price.toFixed(),
      amount: formatMoney(line.amount),
      parts: parts.flatMap(({ interval, lines: own }) =>
        own
          .filter((l) => l.project_id === line.project_id && l.dimension === line.dimension)
          .map((l) => ({
            from: interval.from,
            to: interval.to,
            quantity: formatQuantity(l.quantity),
            unit_price: l.unit_price.toFixed(),
          })),
      ),
    }),
  );
  return { intervals: explained, lines };
}
