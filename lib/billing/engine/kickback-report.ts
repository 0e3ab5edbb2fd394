import type { Sql } from "postgres";
import { parsePeriod } from "../../foundation/time/period.ts";
import type { RunRecord } from "./run-lookup.ts";

export interface KickbackBreakdown {
  cloud: string;
  project_id: string;
  relation_id: string;
  scope: string;
  rate: string;
  base: string;
  amount: string;
}

export interface KickbackBeneficiary {
  beneficiary: string;
  currency: string;
  kickback_total: string;
  /** How many statements contributed to it. */
  projects: number;
  breakdown: KickbackBreakdown[];
}

export interface KickbackReport {
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
  const settlements = await sql<
    {
      beneficiary_cloud: string;
      beneficiary: string;
      currency: string;
      kickback_total: string;
      projects: number;
    }[]
  >`select beneficiary_cloud, beneficiary, currency, kickback_total::text, projects from partner_settlements
    where run_id = ${run.id} order by beneficiary, beneficiary_cloud`;
  type Line = KickbackBreakdown & { relation_target: string; relation_target_cloud: string };
  const lines =
    run.kind === "correction"
      ? await sql<Line[]>`
        select cloud, project_id, relation_id::text, scope, to_char(rate, 'FM0.000000') as rate,
          (new_base - old_base)::text as base, delta::text as amount, relation_target, relation_target_cloud
        from adjustment_deltas where run_id = ${run.id} and type = 'kickback'
        order by relation_target, cloud, project_id, relation_id, seq`
      : await sql<Line[]>`
        select cloud, project_id, relation_id::text, scope, to_char(rate, 'FM0.000000') as rate, base::text,
          amount::text, relation_target, relation_target_cloud
        from adjustment_records where run_id = ${run.id} and type = 'kickback'
        order by relation_target, cloud, project_id, relation_id, seq`;
  return {
    run_id: run.id,
    kind: run.kind,
    corrects_run_id: run.corrects_run_id,
    period_from: period.from,
    period_to: period.to,
    beneficiaries: settlements.map((s) => ({
      beneficiary: s.beneficiary,
      currency: s.currency,
      kickback_total: s.kickback_total,
      projects: s.projects,
      breakdown: lines
        .filter((l) => l.relation_target === s.beneficiary && l.relation_target_cloud === s.beneficiary_cloud)
        .map((l) => ({
          cloud: l.cloud,
          project_id: l.project_id,
          relation_id: l.relation_id,
          scope: l.scope,
          rate: l.rate,
          base: l.base,
          amount: l.amount,
        })),
    })),
  };
}
