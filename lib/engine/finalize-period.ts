import type { Sql } from "postgres";
import { UsageError } from "../cli/usage-error.ts";
import type { Period } from "../time/period.ts";
import { withPeriodLock } from "./period-lock.ts";
import { defaultRun, type RunRecord, requireRun, runsOfPeriod } from "./run-lookup.ts";

/**
 * `finalize --period [--run]`: the human gate that closes a month on a regular run (decision 407).
 * Nothing finalizes by itself. Refused: a second finalization, a run of another period, a run that is
 * not completed, and a run that could not read its counters or failed a statement (its bill is known
 * to be incomplete: rerun first). Without `--run` the latest completed regular run is finalized.
 */
export async function finalizePeriod(sql: Sql, period: Period, runId: string | undefined): Promise<string[]> {
  return withPeriodLock(sql, period.name, async () => {
    const runs = await runsOfPeriod(sql, period.name);
    const finalized = runs.find((r) => r.kind === "regular" && r.status === "finalized");
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
    if (run.kind === "correction") {
      throw new UsageError(
        `run ${run.id} is a correction: corrections are finalized by part 2 of the engine`,
      );
    }
    if (finalized !== undefined) {
      throw new UsageError(
        `${period.name} is already finalized by run ${finalized.id} at ${finalized.finalized_at}: a finalized month is never changed`,
      );
    }
    if (run.status !== "completed")
      throw new UsageError(`run ${run.id} is ${run.status}, not completed: it cannot be finalized`);
    const codes = (run.stats.codes ?? {}) as Record<string, number>;
    if ((codes.counter_store_unreachable ?? 0) > 0) {
      throw new UsageError(
        `run ${run.id} could not read its counters for ${codes.counter_store_unreachable} resources: rerun ${period.name} once the metrics store answers, then finalize that run`,
      );
    }
    const [failed] = await sql<{ n: number }[]>`
      select count(*)::int as n from statements where run_id = ${run.id} and error is not null`;
    if ((failed?.n ?? 0) > 0) {
      throw new UsageError(
        `run ${run.id} failed ${failed?.n} statements (unreadable pricing adjustments): mend the relations, rerun, then finalize`,
      );
    }
    const [row] = await sql<{ at: string }[]>`update runs set status = 'finalized', finalized_at = now()
      where id = ${run.id} and status = 'completed'
      returning to_char(finalized_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at`;
    return [`run ${run.id} finalized for ${period.name} at ${row?.at}`];
  });
}
