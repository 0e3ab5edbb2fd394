import { compare } from "../../foundation/collections/compare.ts";
import type { Decimal } from "../../foundation/money/decimal.ts";
import { applyPlan, type DimensionUsage, type TierBand } from "../pricing/plan-lines.ts";
import type { Plan, TierMode } from "../pricing/plans.ts";
import type { Bucket } from "./build-statements.ts";

/**
 * A plan's lines as a statement holds them (docs/pricing-model.md#on-a-statement, decision 467): one
 * tier line per tiered dimension the statement used, named by its `<platform>.<resource_type>.<dimension>`
 * path as the model writes it, and every minimum of the plan with its usage and its top-up (0.00 when
 * the usage met it), types before platforms. Their amounts are in the statement's buckets already.
 */
export interface StatementTierLine {
  dimension: string;
  mode: TierMode;
  /** The statement's quantity of the dimension, six places. */
  quantity: Decimal;
  tiers: TierBand[];
  amount: Decimal;
}

export interface StatementMinimum {
  scope: string;
  minimum: Decimal;
  usage: Decimal;
  amount: Decimal;
}

export interface StatementPlan {
  name: string;
  tier_lines: StatementTierLine[];
  minimums: StatementMinimum[];
}

/** A statement's plan lines as a correction compares them (a stored statement's, or a built one's). */
export interface PlanFigures {
  name: string;
  tier_lines: readonly Pick<StatementTierLine, "dimension" | "amount">[];
  minimums: readonly Pick<StatementMinimum, "scope" | "amount">[];
}

/**
 * A statement's buckets under its plan (pure): `applyPlan`'s tier lines and top-ups added to them
 * (a platform's top-up in its `commitment` bucket, which sorts among the types by its name), and the
 * lines themselves; null lines when the plan put none on the statement (it tiers only what it did not use).
 */
export function planOnStatement(
  plan: Plan,
  usage: readonly DimensionUsage[],
  buckets: readonly Bucket[],
): { plan: StatementPlan | null; buckets: Bucket[] } {
  const applied = applyPlan(plan, usage, buckets);
  const out = applied.buckets.sort(
    (a, b) => compare(a.platform, b.platform) || compare(a.resource_type, b.resource_type),
  );
  const { tiers, minimums } = applied.lines;
  if (tiers.length === 0 && minimums.length === 0) return { plan: null, buckets: out };
  return {
    plan: {
      name: plan.name,
      tier_lines: tiers.map((t) => ({
        dimension: `${t.platform}.${t.resource_type}.${t.dimension}`,
        mode: t.mode,
        quantity: t.quantity,
        tiers: t.bands,
        amount: t.amount,
      })),
      minimums: minimums.map((m) => ({
        scope: m.scope,
        minimum: m.minimum,
        usage: m.usage,
        amount: m.amount,
      })),
    },
    buckets: out,
  };
}
