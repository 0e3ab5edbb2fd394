import type { Sql } from "postgres";
import { parsePeriod } from "../../foundation/time/period.ts";
import type { RunRecord } from "./run-lookup.ts";
import { kickbackLineRows, settlementRows } from "./store/kickback-rows.ts";

export interface KickbackBreakdown {
  cloud: string;
  project_id: string;
  relation_id: string;
  scope: string;
  rate: string;
  base: string;
  amount: string;
}

interface KickbackBeneficiary {
  beneficiary: string;
  currency: string;
  kickback_total: string;
  /** How many statements contributed to it. */
  projects: number;
  breakdown: KickbackBreakdown[];
}

interface KickbackReport {
  run_id: string;
  kind: string;
  corrects_run_id: string | null;
  period_from: string;
  period_to: string;
  beneficiaries: KickbackBeneficiary[];
}

/**
 * The kickback report of a run (docs/engine.md#kickback-report): per beneficiary (the partner project's
 * external id) its settlement and every kickback line behind it, ordered by beneficiary, then statement
 * and relation. For a correction every figure is a difference against the run it corrects: the
 * settlement's `kickback_total` is what the beneficiary is owed more (positive) or less (negative), and
 * each line's `base` and `amount` are how far its base and amount moved (decision 428).
 */
export async function kickbackReport(sql: Sql, run: RunRecord): Promise<KickbackReport> {
  const period = parsePeriod(run.period);
  const settlements = await settlementRows(sql, run.id);
  const lines = await kickbackLineRows(sql, run.id, run.kind === "correction");
  return {
    run_id: run.id,
    kind: run.kind,
    corrects_run_id: run.correctsRunId,
    period_from: period.from,
    period_to: period.to,
    beneficiaries: settlements.map((s) => ({
      beneficiary: s.beneficiary,
      currency: s.currency,
      kickback_total: s.kickbackTotal,
      projects: s.projects,
      breakdown: lines
        .filter((l) => l.relationTarget === s.beneficiary && l.relationTargetCloud === s.beneficiaryCloud)
        .map((l) => ({
          cloud: l.cloud,
          project_id: l.projectId,
          relation_id: l.relationId,
          scope: l.scope,
          rate: l.rate,
          base: l.base,
          amount: l.amount,
        })),
    })),
  };
}
