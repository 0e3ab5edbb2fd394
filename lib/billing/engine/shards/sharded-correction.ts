import type { Sql } from "postgres";
import type { ComputedCorrection, CorrectionOptions } from "../compute-correction.ts";
import { noteMonth } from "../correct-month.ts";
import { readStandingStatements } from "../month-reader.ts";
import { withSharedSnapshot } from "../reporting-source.ts";
import { writeNotes } from "../store/run-writer.ts";
import { completeRun, dropRun } from "../store/runs.ts";
import { readLineDeltas } from "../store/shard-rows.ts";
import { meterAndSum } from "./sharded-run.ts";
import type { Workers } from "./worker-pool.ts";

/**
 * A correction's month spread over worker processes (decision 471), as a run's is (decision 470):
 * each worker diffs its shard against the shard's standing lines and commits its line deltas and
 * bucket totals; then one step reads every shard's deltas and sums, builds the month's statements
 * against the standing ones and stores the credit notes and completes the correction in one
 * transaction, or, when nothing moved, drops it with its shards' rows, as one process does.
 */
export function computeShardedCorrection(
  sql: Sql,
  runId: string,
  options: CorrectionOptions,
  workers: Workers,
): Promise<ComputedCorrection> {
  return withSharedSnapshot(options.reporting, options.period, async (snapshot) => {
    const summed = await meterAndSum(sql, runId, workers, snapshot);
    const deltas = await readLineDeltas(sql, runId);
    const standing = await readStandingStatements(options.engine, options.chain);
    const corrected = noteMonth(summed, deltas, standing, snapshot, options);
    await sql.begin(async (tx) => {
      if (!corrected.moved) return dropRun(tx, runId);
      await writeNotes(tx, runId, options.model.currency, corrected);
      await completeRun(tx, runId, snapshot.readAt, corrected.stats);
    });
    return { ...corrected, readAt: snapshot.readAt };
  });
}
