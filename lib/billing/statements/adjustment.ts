import { type Decimal, decimal } from "../../foundation/money/decimal.ts";
import {
  type AdjustmentType,
  type PricingAdjustment,
  pricingAdjustmentErrors,
} from "../pricing/pricing-adjustments.ts";

export type { AdjustmentType };

/** The four adjustment types in application order (docs/engine.md#adjustments, rule 2). */
export const adjustmentOrder = [
  "surcharge",
  "discount",
  "project_discount",
  "kickback",
] as const satisfies readonly AdjustmentType[];

/** One element of a relation's `pricing_adjustments`, as the engine applies it. */
export interface Adjustment {
  type: AdjustmentType;
  rate: Decimal;
  scope: string;
  description: string;
}

/**
 * A stored `pricing_adjustments` array read under the registry's own rules
 * (`lib/billing/pricing/pricing-adjustments.ts`). Null when it breaks any of them, which fails the statement
 * that reaches it (docs/engine.md#adjustments, rule 7): applying part of an array would bill a price nobody agreed to.
 */
export function readAdjustments(value: unknown): Adjustment[] | null {
  if (pricingAdjustmentErrors(value, "pricing_adjustments").length > 0) return null;
  return (value as PricingAdjustment[]).map((e) => ({
    type: e.type,
    rate: decimal(e.rate),
    scope: e.scope,
    description: e.description ?? "",
  }));
}
