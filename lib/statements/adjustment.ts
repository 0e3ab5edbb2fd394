import { type Decimal, decimal } from "../money/decimal.ts";

/** The four adjustment types in application order (spec 2, Application of adjustments, rule 2). */
export const adjustmentOrder = ["surcharge", "discount", "project_discount", "kickback"] as const;
export type AdjustmentType = (typeof adjustmentOrder)[number];

/** One element of a relation's `pricing_adjustments`, as the engine applies it. */
export interface Adjustment {
  type: AdjustmentType;
  rate: Decimal;
  scope: string;
  description: string;
}

const ratePattern = /^0(\.\d{1,6})?$|^1(\.0{1,6})?$/;
const scopePattern = /^all$|^[a-z0-9_]+(\.[a-z0-9_]+)?$/;
const members = new Set(["type", "rate", "scope", "description"]);

/**
 * A stored `pricing_adjustments` array read under the registry's rules (spec 1): 1 to 64 elements,
 * each exactly `type`, `rate`, `scope` and an optional `description`. Null when it cannot be read
 * as a whole, which fails the statement that reaches it (spec 2, rule 7): applying part of an array
 * would bill a price nobody agreed to.
 */
export function readAdjustments(value: unknown): Adjustment[] | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > 64) return null;
  const out: Adjustment[] = [];
  for (const element of value as unknown[]) {
    if (typeof element !== "object" || element === null || Array.isArray(element)) return null;
    const e = element as Record<string, unknown>;
    if (Object.keys(e).some((k) => !members.has(k))) return null;
    const { type, rate, scope, description } = e;
    if (typeof type !== "string" || !(adjustmentOrder as readonly string[]).includes(type)) return null;
    if (typeof rate !== "string" || !ratePattern.test(rate)) return null;
    if (typeof scope !== "string" || !scopePattern.test(scope)) return null;
    if (description !== undefined && (typeof description !== "string" || [...description].length > 500))
      return null;
    out.push({ type: type as AdjustmentType, rate: decimal(rate), scope, description: description ?? "" });
  }
  return out;
}
