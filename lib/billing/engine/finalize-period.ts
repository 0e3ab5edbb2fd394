import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import type { Period } from "../../foundation/time/period.ts";
import { withPeriodLock } from "./period-lock.ts";
import { defaultRun, finalizedChain, type RunRecord, requireRun } from "./run-lookup.ts";
import { failedStatements, markFinalized } from "./store/runs.ts";

/** A run finalized: what `finalize --json` prints. */
export interface FinalizedRun {
  run_id: string;
  kind: "regular" | "correction";
  period: string;
  finalized_at: string;
}

/** The line `finalize` prints. */
export function finalizedLine(f: FinalizedRun): string {
  return f.kind === "correction"
    ? `correction run ${f.run_id} finalized for ${f.period}`
    : `run ${f.run_id} finalized for ${f.period} at ${f.finalized_at}`;
}

/**
 * `finalize --period [--run]`: the human gate that closes a month on a regular run (decision 407), and
 * with `--run` naming a correction, the step that makes the correction's numbers stand (no human
 * gate beyond the command, docs/engine.md#finalizing-a-month; decision 425). Nothing finalizes by itself. Refused: a second
 * finalization, a run of another period, a run that is not completed, a run that could not read its
 * counters or failed a statement (its bill is known to be incomplete: rerun first), and a correction
 * of numbers that no longer stand (another correction was finalized since). Without `--run` the latest
 * completed regular run is finalized.
 */
export async function finalizePeriod(
  sql: Sql,
  period: Period,
  runId: string | undefined,
): Promise<FinalizedRun> {
  return withPeriodLock(sql, period.name, async () => {
    const chain = await finalizedChain(sql, period.name);
    const finalized = chain[0];
    let run: RunRecord;
    if (runId !== undefined) {
      run = await requireRun(sql, runId);
      if (run.period !== period.name) {
        throw new UsageError(`run ${run.id} is a run of ${run.period}, not of ${period.name}`);
      }
    } else {
      const chosen = finalized ?? (await defaultRun(sql, period.name));
      if (chosen === null) {
        throw new UsageError(
          `${period.name} has no completed run: run it first with run --period ${period.name}`,
        );
      }
      run = chosen;
    }
    if (run.kind === "correction") return finalizeCorrection(sql, period, run, chain);
    if (finalized !== undefined) {
      throw new UsageError(
        `${period.name} is already finalized by run ${finalized.id} at ${finalized.finalizedAt}: a finalized month is never changed`,
      );
    }
    await refuseIncomplete(sql, run, `rerun ${period.name}`);
    const at = await markFinalized(sql, run.id);
    return { run_id: run.id, kind: "regular", period: period.name, finalized_at: at };
  });
}

async function finalizeCorrection(
  sql: Sql,
  period: Period,
  run: RunRecord,
  chain: readonly RunRecord[],
): Promise<FinalizedRun> {
  if (run.status === "finalized") {
    throw new UsageError(`correction run ${run.id} is already finalized at ${run.finalizedAt}`);
  }
  const standing = chain.at(-1);
  if (standing !== undefined && run.correctsRunId !== standing.id) {
    throw new UsageError(
      `correction run ${run.id} corrects run ${run.correctsRunId}, but the numbers of ${period.name} now stand on run ${standing.id}: correct again with correct --period ${period.name}`,
    );
  }
  await refuseIncomplete(sql, run, `correct ${period.name} again`);
  const at = await markFinalized(sql, run.id);
  return { run_id: run.id, kind: "correction", period: period.name, finalized_at: at };
}

/** A run whose bill is known to be incomplete is not finalized: missing counters, a failed statement. */
async function refuseIncomplete(sql: Sql, run: RunRecord, again: string): Promise<void> {
  if (run.status !== "completed")
    throw new UsageError(`run ${run.id} is ${run.status}, not completed: it cannot be finalized`);
  const unreachable = run.stats.codes?.counter_store_unreachable ?? 0;
  if (unreachable > 0) {
    throw new UsageError(
      `run ${run.id} could not read its counters for ${unreachable} resources: ${again} once the metrics store answers, then finalize that run`,
    );
  }
  const failed = await failedStatements(sql, run.id);
  if (failed > 0) {
    throw new UsageError(
      `run ${run.id} failed ${failed} statements (unreadable pricing adjustments): mend the relations, ${again}, then finalize`,
    );
  }
}
