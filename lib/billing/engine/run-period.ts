import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { hasEnded, type Period } from "../../foundation/time/period.ts";
import { counterHint, warningsLine } from "../metering/run-warnings.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import type { StatementOptions } from "../statements/build-statements.ts";
import { type ComputedMonth, computeMonth } from "./compute-month.ts";
import type { EngineDatabase } from "./engine-database.ts";
import { withPeriodLock } from "./period-lock.ts";
import type { RunStats } from "./price-month.ts";
import type { CounterSetup } from "./rate-month.ts";
import { finalizedChain } from "./run-lookup.ts";
import { computeShardedMonth } from "./shards/sharded-run.ts";
import type { Workers } from "./shards/worker-pool.ts";
import { storePricingModel } from "./store/pricing-models.ts";
import { completeRun, failRun, insertRun } from "./store/runs.ts";

export interface EngineDeps {
  engine: EngineDatabase;
  reporting: Sql;
  counters: CounterSetup | null;
  statements: StatementOptions;
  /** Spread over worker processes (`--workers N`, decision 470); absent or 1: in this process. */
  workers?: Workers;
}

export interface RunResult {
  runId: string;
  readAt: string;
  stats: RunStats;
  computed: ComputedMonth;
}

/**
 * `run --period`: a regular run of an ended month (decision 406). Refused while another run of the
 * period is in progress and once the period is finalized (late events are booked by `correct`).
 * The run row is visible as `running` from the start; everything it computes commits at once with
 * its completion, or the row ends `failed` with the reason and nothing else stays. Spread over
 * workers, each worker commits its shard's rows and the completion commits the statements; the run
 * is completed only once every shard is in, and a failure takes every shard's rows with it.
 */
export async function runPeriod(
  deps: EngineDeps,
  period: Period,
  model: PricingModel,
  now: Date = new Date(),
): Promise<RunResult> {
  if (!hasEnded(period, now)) {
    throw new UsageError(`${period.name} has not ended: a month is run once it is over`);
  }
  const sql = deps.engine.sql;
  return withPeriodLock(sql, period.name, async () => {
    const [finalized] = await finalizedChain(sql, period.name);
    if (finalized !== undefined) {
      throw new UsageError(
        `${period.name} is finalized (run ${finalized.id}): book late events with correct --period ${period.name}`,
      );
    }
    await storePricingModel(sql, model);
    const runId = await insertRun(sql, {
      kind: "regular",
      period: period.name,
      pricingModel: model.name,
      adjustmentRelationTypes: [...deps.statements.relationTypes],
      adjustmentDepth: deps.statements.depth,
    });
    const options = {
      reporting: deps.reporting,
      period,
      model,
      counters: deps.counters,
      statements: deps.statements,
    };
    try {
      const workers = deps.workers;
      const computed =
        workers !== undefined && workers.count > 1
          ? await computeShardedMonth(sql, runId, options, workers)
          : await sql.begin(async (tx) => {
              const month = await computeMonth(tx, runId, options);
              await completeRun(tx, runId, month.readAt, month.stats);
              return month;
            });
      return { runId, readAt: computed.readAt, stats: computed.stats, computed };
    } catch (error) {
      await failRun(sql, runId, error).catch(() => {});
      throw error;
    }
  });
}

/** What `run` prints: the run line, the metered counts, the warnings line and, when counters failed, the hint. */
export function runReport(result: RunResult, period: Period, model: PricingModel): string[] {
  const { counts } = result.stats;
  const lines = [
    `run ${result.runId} completed for ${period.name} with pricing model ${model.name}`,
    `metered ${counts.candidates} candidates into ${counts.usage_records} usage records and ${counts.rated_records} rated records`,
    warningsLine(result.stats),
  ];
  const hint = counterHint(result.stats, `engine run --period ${period.name}`);
  if (hint !== null) lines.push(hint);
  return lines;
}
