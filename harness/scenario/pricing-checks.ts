import { scaledText } from "../../lib/billing/simulator/oracle-bill/exact.ts";
import type { BillFindings, OracleBill } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { decimal } from "../../lib/foundation/money/decimal.ts";
import { type Check, check } from "./check.ts";

/**
 * What a month priced by a scenario's own model must have met, or the seed proves less than the
 * scenario claims (decision 545): each case named and counted, from the oracle's bill of the whole
 * month (the comparison proves the engine billed the same).
 */

/** A statement under a plan, as the checks read it. */
interface PlanStatement {
  statement: string;
  /** Its tier lines: dimension, the tier reached (0: the first), amount. */
  tiers: { dimension: string; reached: number; amount: string }[];
  /** Its minimums: scope, top-up. */
  minimums: { scope: string; amount: string }[];
}

export interface PricingSeen {
  findings: BillFindings;
  plans: PlanStatement[];
}

/** The pricing cases the oracle's bill met. */
export function pricingSeen(bill: OracleBill): PricingSeen {
  const plans = (bill.statements ?? [])
    .filter((s) => s.tiers.length > 0 || s.minimums.length > 0)
    .map((s) => ({
      statement: `${s.cloud}/${s.project_id}`,
      tiers: s.tiers.map((t) => ({
        dimension: `${t.platform}.${t.resource_type}.${t.dimension}`,
        reached: t.reached,
        amount: scaledText(t.amount, 2),
      })),
      minimums: s.minimums.map((m) => ({ scope: m.scope, amount: scaledText(m.amount, 2) })),
    }));
  return { findings: bill.findings, plans };
}

/**
 * The checks of a priced month: prices chosen by attribute (some named through `names`) and a flavor
 * priced whole; intervals cut at a price change; on every tiered statement a tier line past its first
 * bound; a top-up billed and a minimum met without one; and, with a correction, a credit note on a
 * statement under a plan (a late event moved its tiers or its minimum's usage).
 */
export function pricingChecks(
  seen: PricingSeen,
  creditNotes: readonly { cloud: string; project_id: string; total: string }[] | undefined,
): Check[] {
  const f = seen.findings;
  const tiered = seen.plans.filter((p) => p.tiers.length > 0);
  const flat = tiered.filter((p) => p.tiers.every((t) => t.reached === 0));
  const minimums = seen.plans.flatMap((p) => p.minimums);
  const topUps = minimums.filter((m) => decimal(m.amount).gt(0));
  const met = minimums.length - topUps.length;
  const planned = new Set(seen.plans.map((p) => p.statement));
  const moved = (creditNotes ?? []).filter(
    (n) => planned.has(`${n.cloud}/${n.project_id}`) && !decimal(n.total).eq(0),
  );
  const checks = [
    check(
      f.pricedByValue > 0 && f.namedValues > 0 && f.wholeFlavorLines > 0,
      `prices chosen by attribute: ${f.pricedByValue} intervals priced by a value's prices, ${f.namedValues} of them named through the model's names; ${f.wholeFlavorLines} lines of a flavor priced whole`,
      [
        ...(f.pricedByValue === 0 ? ["no interval was priced by an attribute value"] : []),
        ...(f.namedValues === 0 ? ["no value was named through names (a volume type by its id)"] : []),
        ...(f.wholeFlavorLines === 0 ? ["no flavor priced whole billed an hour"] : []),
      ],
    ),
    check(f.splitIntervals > 0, `the price change cut ${f.splitIntervals} intervals at its instant`, [
      "no interval spanned the change: the month is not the model's (2026-10)",
    ]),
    check(
      tiered.length > 0 && flat.length === 0,
      `tiers: ${f.tierLines} tier lines on ${tiered.length} statements, ${f.tiersCrossed} past a tier's bound (${tiered.flatMap((p) => p.tiers.map((t) => `${t.dimension} tier ${t.reached + 1} ${t.amount}`)).join(", ")})`,
      [
        ...(tiered.length === 0 ? ["no statement under a tiered plan used a tiered dimension"] : []),
        ...flat.map((p) => `${p.statement} stayed inside its first tiers`),
      ],
    ),
    check(
      topUps.length > 0 && met > 0,
      `minimums: ${topUps.length} top-ups billed (${topUps.map((m) => `${m.scope} ${m.amount}`).join(", ")}), ${met} minimums met without one`,
      [
        ...(topUps.length === 0 ? ["no minimum billed a top-up"] : []),
        ...(met === 0 ? ["every minimum billed a top-up: none was met"] : []),
      ],
    ),
  ];
  if (creditNotes !== undefined)
    checks.push(
      check(
        moved.length > 0,
        `the correction moved ${moved.length} statements under a plan (${moved.map((n) => `${n.project_id} ${n.total}`).join(", ")})`,
        ["no credit note moved a statement under a plan: no late event crossed a plan's terms"],
      ),
    );
  return checks;
}
