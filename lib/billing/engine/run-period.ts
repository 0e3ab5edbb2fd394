import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { hasEnded, type Period } from "../../foundation/time/period.ts";
import { counterHint, warningsLine } from "../metering/run-warnings.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import type { StatementOptions } from "../statements/build-statements.ts";
import { type ComputedMonth, computeMonth, type RunStats } from "./compute-month.ts";
import type { EngineDatabase } from "./engine-database.ts";
import { withPeriodLock } from "./period-lock.ts";
import { storePricingModel } from "./pricing-store.ts";
import type { CounterSetup } from "./rate-month.ts";

export interface EngineDeps {
  engine: EngineDatabase;
  reporting: Sql;
  counters: CounterSetup | null;
  statements: StatementOptions;
}

export interface RunResult {
  runId: string;
  readAt: string;
  stats: RunStats;
  computed: ComputedMonth;
}

/** The finalized regular run of a period, if any. */
export async function finalizedRun(
  sql: Sql,
  period: string,
): Promise<{ id: string; finalized_at: string } | null> {
  const [row] = await sql<{ id: string; finalized_at: string }[]>`
    select id::text, finalized_at::text from runs where period = ${period} and kind = 'regular' and status = 'finalized'`;
  return row ?? null;
}

/**
 * `run --period`: a regular run of an ended month (decision 406). Refused while another run of the
 * period is in progress and once the period is finalized (late events are booked by `correct`).
 * The run row is visible as `running` from the start; everything it computes commits at once with
 * its completion, or the row ends `failed` with the reason and nothing else stays.
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
    const finalized = await finalizedRun(sql, period.name);
    if (finalized !== null) {
      throw new UsageError(
        `${period.name} is finalized (run ${finalized.id}): book late events with correct --period ${period.name}`,
      );
    }
    await storePricingModel(sql, model);
    const walk = deps.statements;
    const [row] = await sql<{ id: string }[]>`insert into runs (kind, period, pricing_model, status,
        adjustment_relation_types, adjustment_depth)
      values ('regular', ${period.name}, ${model.name}, 'running', ${walk.relationTypes as string[]}, ${walk.depth})
      returning id::text`;
    const runId = (row as { id: string }).id;
    try {
      const computed = await sql.begin(async (tx) => {
        const month = await computeMonth(tx, runId, {
          reporting: deps.reporting,
          period,
          model,
          counters: deps.counters,
          statements: deps.statements,
        });
        await tx`update runs set status = 'completed', read_at = ${month.readAt}, completed_at = now(),
          stats = ${JSON.stringify(month.stats)} where id = ${runId}`;
        return month;
      });
      return { runId, readAt: computed.readAt, stats: computed.stats, computed };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await sql`update runs set status = 'failed', error = ${reason.slice(0, 2000)} where id = ${runId}`.catch(
        () => {},
      );
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
