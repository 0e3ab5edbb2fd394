import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import type { Period } from "../../foundation/time/period.ts";
import { counterHint, warningsLine } from "../metering/run-warnings.ts";
import { type ComputedCorrection, computeCorrection } from "./compute-correction.ts";
import type { EngineDatabase } from "./engine-database.ts";
import { withPeriodLock } from "./period-lock.ts";
import { loadPricingModel } from "./pricing-store.ts";
import type { CounterSetup } from "./rate-month.ts";
import { finalizedChain } from "./run-lookup.ts";

export interface CorrectDeps {
  engine: EngineDatabase;
  reporting: Sql;
  counters: CounterSetup | null;
}

export type CorrectionResult =
  | {
      kind: "stored";
      runId: string;
      correctsRunId: string;
      pricingModel: string;
      computed: ComputedCorrection;
    }
  | { kind: "no-deltas" };

/**
 * `correct --period` (docs/engine.md#correction-rules): meters the whole month again with the pricing model
 * and the adjustment walk of the finalized run, diffs it against the numbers that stand (the finalized
 * run and its finalized corrections, decision 423) and stores the deltas and credit notes as a run of
 * kind `correction` naming the run it corrects. Held under the period's lock like `run`, so two at once
 * cannot both store; refused for a period that is not finalized. When nothing moved, no run is stored.
 */
export async function correctPeriod(deps: CorrectDeps, period: Period): Promise<CorrectionResult> {
  const sql = deps.engine.sql;
  return withPeriodLock(sql, period.name, async () => {
    const chain = await finalizedChain(sql, period.name);
    const regular = chain[0];
    const corrected = chain.at(-1);
    if (regular === undefined || corrected === undefined) {
      throw new UsageError(
        `the billing period is not finalized: ${period.name} has no finalized run to correct; run it with run --period ${period.name} and close it with finalize --period ${period.name}`,
      );
    }
    const model = await loadPricingModel(sql, regular.pricing_model);
    const [row] = await sql<{ id: string }[]>`insert into runs (kind, period, corrects_run_id, pricing_model,
        status, adjustment_relation_types, adjustment_depth)
      values ('correction', ${period.name}, ${corrected.id}, ${model.name}, 'running',
        ${regular.adjustment_relation_types}, ${regular.adjustment_depth})
      returning id::text`;
    const runId = (row as { id: string }).id;
    try {
      const computed = await sql.begin(async (tx) => {
        const month = await computeCorrection(tx, runId, {
          engine: sql,
          reporting: deps.reporting,
          period,
          model,
          counters: deps.counters,
          statements: { relationTypes: regular.adjustment_relation_types, depth: regular.adjustment_depth },
          chain: { regular: regular.id, corrections: chain.slice(1).map((r) => r.id) },
        });
        if (!month.moved) await tx`delete from runs where id = ${runId}`;
        else {
          await tx`update runs set status = 'completed', read_at = ${month.readAt}, completed_at = now(),
            stats = ${JSON.stringify(month.stats)} where id = ${runId}`;
        }
        return month;
      });
      if (!computed.moved) return { kind: "no-deltas" };
      return { kind: "stored", runId, correctsRunId: corrected.id, pricingModel: model.name, computed };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await sql`update runs set status = 'failed', error = ${reason.slice(0, 2000)} where id = ${runId}`.catch(
        () => {},
      );
      throw error;
    }
  });
}

/** What `correct` prints (docs/engine.md#commands). */
export function correctionReport(result: CorrectionResult, period: Period): string[] {
  if (result.kind === "no-deltas") return [`no deltas: the finalized numbers of ${period.name} stand`];
  const { stats } = result.computed;
  const { counts } = stats;
  const lines = [
    `run ${result.runId} completed as a correction of run ${result.correctsRunId} for ${period.name} with pricing model ${result.pricingModel}`,
    `metered ${counts.candidates} candidates into ${counts.usage_records} usage records and ${counts.rated_records} rated records`,
    `${counts.deltas} deltas and ${counts.adjustment_deltas} adjustment deltas in ${counts.credit_notes} credit notes`,
    warningsLine(stats),
  ];
  const hint = counterHint(stats, `engine correct --period ${period.name}`);
  if (hint !== null) lines.push(hint);
  return lines;
}
