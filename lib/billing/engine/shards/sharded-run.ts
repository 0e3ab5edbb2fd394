import type { Sql } from "postgres";
import type { ComputedMonth, ComputeOptions } from "../compute-month.ts";
import { type SummedMonth, stateMonth } from "../price-month.ts";
import { withSharedSnapshot } from "../reporting-source.ts";
import { writeStated } from "../store/run-writer.ts";
import { completeRun } from "../store/runs.ts";
import { readShards } from "../store/shard-rows.ts";
import { meterShards, type Workers } from "./worker-pool.ts";

/**
 * A run's month spread over worker processes (decision 470, docs/engine-scaling.md): the snapshot is
 * exported and held, each worker meters its shard in it and commits its rows and bucket totals, then
 * one statement step sums the buckets of all shards, states the month against the registry read in
 * the same snapshot, and completes the run in one transaction. A worker that fails fails the run: the
 * caller marks it failed, which takes every shard's rows with it.
 */
export function computeShardedMonth(
  sql: Sql,
  runId: string,
  options: ComputeOptions,
  workers: Workers,
): Promise<ComputedMonth> {
  return withSharedSnapshot(options.reporting, options.period, async (snapshot) => {
    const priced = stateMonth(await meterAndSum(sql, runId, workers, snapshot), snapshot, options);
    await sql.begin(async (tx) => {
      await writeStated(tx, runId, options.model.currency, priced);
      await completeRun(tx, runId, snapshot.readAt, priced.stats);
    });
    return { ...priced, readAt: snapshot.readAt };
  });
}

/** Every worker of a run or a correction metered in the snapshot, then their shards summed. */
export async function meterAndSum(
  sql: Sql,
  runId: string,
  workers: Workers,
  snapshot: { id: string; readAt: string },
): Promise<SummedMonth> {
  await meterShards(workers, runId, snapshot);
  const summed = await readShards(sql, runId, workers.count);
  if (summed === null) throw new Error(`run ${runId}: not every one of its ${workers.count} shards is in`);
  return summed;
}
