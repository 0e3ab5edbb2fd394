import type { Sql } from "postgres";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { parsePeriod } from "../../../foundation/time/period.ts";
import type { EngineDatabase } from "../engine-database.ts";
import { readMonth, type ShardRead } from "../month-reader.ts";
import { rateAndSum } from "../price-month.ts";
import type { CounterSetup } from "../rate-month.ts";
import { requireRun } from "../run-lookup.ts";
import { loadPricingModel } from "../store/pricing-models.ts";
import { writeRatedRows } from "../store/run-writer.ts";
import { writeShard } from "../store/shard-rows.ts";

export interface ShardDeps {
  engine: EngineDatabase;
  reporting: Sql;
  counters: CounterSetup | null;
}

/**
 * A worker's shard of a run spread over processes (decision 470): the run's period and pricing model
 * from its row, the shard's resources read in the coordinator's snapshot, metered and rated; in one
 * transaction of the engine database their usage records and rated lines, the shard's per-project
 * bucket totals and its shard row. Nothing is stated here: the coordinator's statement step sums the
 * shards once all are in.
 */
export async function meterShard(deps: ShardDeps, runId: string, read: ShardRead): Promise<void> {
  const sql = deps.engine.sql;
  const run = await requireRun(sql, runId);
  if (run.status !== "running") throw new UsageError(`run ${runId} is ${run.status}, not running`);
  const period = parsePeriod(run.period);
  const model = await loadPricingModel(sql, run.pricingModel);
  await sql.begin((tx) =>
    readMonth(
      deps,
      period,
      async (month) => {
        const summed = await writeRatedRows(tx, runId, rateAndSum(month, { period, model }));
        await writeShard(tx, runId, read.shard, summed);
      },
      read,
    ),
  );
}
