import type { Sql, TransactionSql } from "postgres";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { parsePeriod } from "../../../foundation/time/period.ts";
import { diffMonth } from "../correct-month.ts";
import type { EngineDatabase } from "../engine-database.ts";
import { readMonth, readStanding, type ShardRead } from "../month-reader.ts";
import { type MonthInput, type PriceOptions, rateAndSum, type SummedMonth } from "../price-month.ts";
import type { CounterSetup } from "../rate-month.ts";
import { chainOf, requireRun } from "../run-lookup.ts";
import { loadPricingModel } from "../store/pricing-models.ts";
import { writeLineDeltas, writeRatedRows } from "../store/run-writer.ts";
import { writeShard } from "../store/shard-rows.ts";

export interface ShardDeps {
  engine: EngineDatabase;
  reporting: Sql;
  counters: CounterSetup | null;
}

/** What a worker stores of its shard's month before its sums: rows of a run, or a correction's deltas. */
type ShardRows = (tx: TransactionSql, month: MonthInput) => Promise<SummedMonth>;

/**
 * A worker's shard of a run spread over processes (decision 470): the run's period and pricing model
 * from its row, the shard's resources read in the coordinator's snapshot, metered and rated; in one
 * transaction of the engine database their usage records and rated lines (a correction's worker: its
 * line deltas against the shard's standing lines, decision 471), the shard's per-project bucket totals
 * and its shard row. Nothing is stated here: the coordinator's statement step sums the shards once all
 * are in.
 */
export async function meterShard(deps: ShardDeps, runId: string, read: ShardRead): Promise<void> {
  const sql = deps.engine.sql;
  const run = await requireRun(sql, runId);
  if (run.status !== "running") throw new UsageError(`run ${runId} is ${run.status}, not running`);
  const options: PriceOptions = {
    period: parsePeriod(run.period),
    model: await loadPricingModel(sql, run.pricingModel),
    statements: { relationTypes: run.adjustmentRelationTypes, depth: run.adjustmentDepth },
  };
  let rows: ShardRows = (tx, month) => writeRatedRows(tx, runId, rateAndSum(month, options));
  if (run.kind === "correction") {
    // The runs it corrects, back to the regular run; the correction itself is the chain's last.
    const [regular, ...corrected] = await chainOf(sql, run);
    if (regular === undefined || corrected.length === 0) throw new Error(`run ${runId}: no chain to correct`);
    const standing = await readStanding(
      sql,
      { regular: regular.id, corrections: corrected.slice(0, -1).map((r) => r.id) },
      read.shard,
    );
    rows = (tx, month) => writeLineDeltas(tx, runId, diffMonth({ ...month, standing }, options));
  }
  await sql.begin((tx) =>
    readMonth(
      deps,
      options.period,
      async (month) => writeShard(tx, runId, read.shard, await rows(tx, month)),
      read,
    ),
  );
}
