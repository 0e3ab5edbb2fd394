import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import type { Period } from "../../foundation/time/period.ts";
import { counterHint, warningsLine } from "../metering/run-warnings.ts";
import { type ComputedCorrection, computeCorrection } from "./compute-correction.ts";
import type { EngineDatabase } from "./engine-database.ts";
import { withPeriodLock } from "./period-lock.ts";
import type { CounterSetup } from "./rate-month.ts";
import { finalizedChain } from "./run-lookup.ts";
import { computeShardedCorrection } from "./shards/sharded-correction.ts";
import type { Workers } from "./shards/worker-pool.ts";
import { loadPricingModel } from "./store/pricing-models.ts";
import { completeRun, dropRun, failRun, insertRun } from "./store/runs.ts";

export interface CorrectDeps {
  engine: EngineDatabase;
  reporting: Sql;
  counters: CounterSetup | null;
  /** Spread over worker processes (`--workers N`, decision 471); absent or 1: in this process. */
  workers?: Workers;
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
 * Spread over workers (decision 471) it stores the same deltas and notes, the run completed once every
 * shard is in.
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
    const model = await loadPricingModel(sql, regular.pricingModel);
    const runId = await insertRun(sql, {
      kind: "correction",
      period: period.name,
      correctsRunId: corrected.id,
      pricingModel: model.name,
      adjustmentRelationTypes: regular.adjustmentRelationTypes,
      adjustmentDepth: regular.adjustmentDepth,
    });
    const options = {
      engine: sql,
      reporting: deps.reporting,
      period,
      model,
      counters: deps.counters,
      statements: { relationTypes: regular.adjustmentRelationTypes, depth: regular.adjustmentDepth },
      chain: { regular: regular.id, corrections: chain.slice(1).map((r) => r.id) },
    };
    try {
      const workers = deps.workers;
      const computed =
        workers !== undefined && workers.count > 1
          ? await computeShardedCorrection(sql, runId, options, workers)
          : await sql.begin(async (tx) => {
              const month = await computeCorrection(tx, runId, options);
              if (!month.moved) await dropRun(tx, runId);
              else await completeRun(tx, runId, month.readAt, month.stats);
              return month;
            });
      if (!computed.moved) return { kind: "no-deltas" };
      return { kind: "stored", runId, correctsRunId: corrected.id, pricingModel: model.name, computed };
    } catch (error) {
      await failRun(sql, runId, error).catch(() => {});
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
