import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { type RunRecord, runById, runsOfPeriod } from "./store/runs.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type { RunRecord };

async function findRun(sql: Sql, id: string): Promise<RunRecord | null> {
  if (!uuidPattern.test(id)) return null;
  return runById(sql, id);
}

/** The run named by `--run`, or a refusal naming what was given. */
export async function requireRun(sql: Sql, id: string): Promise<RunRecord> {
  const run = await findRun(sql, id);
  if (run === null)
    throw new UsageError(`no run ${JSON.stringify(id)}: engine periods list shows the periods run`);
  return run;
}

/** The period's finalized regular run, or the latest completed regular run when none is finalized. */
export async function defaultRun(sql: Sql, period: string): Promise<RunRecord | null> {
  const runs = (await runsOfPeriod(sql, period)).filter((r) => r.kind === "regular");
  return (
    runs.find((r) => r.status === "finalized") ??
    runs
      .filter((r) => r.status === "completed")
      .sort((a, b) => (a.completedAt ?? "").localeCompare(b.completedAt ?? ""))
      .at(-1) ??
    null
  );
}

/**
 * The finalized runs of a period in the order they stand: the finalized regular run, then the
 * finalized correction of it, then the finalized correction of that one… (decision 423). Empty when
 * the period is not finalized. The last is what a new correction corrects and what `detect-late`
 * compares with.
 */
export async function finalizedChain(sql: Sql, period: string): Promise<RunRecord[]> {
  const finalized = (await runsOfPeriod(sql, period)).filter((r) => r.status === "finalized");
  const regular = finalized.find((r) => r.kind === "regular");
  if (regular === undefined) return [];
  const chain = [regular];
  for (;;) {
    const last = chain.at(-1) as RunRecord;
    const next = finalized.find((r) => r.correctsRunId === last.id);
    if (next === undefined) return chain;
    chain.push(next);
  }
}

/**
 * The runs whose numbers a run's stand on, oldest first, ending with the run itself: for a regular
 * run itself alone; for a correction the run it corrects, back to the regular run.
 */
export async function chainOf(sql: Sql, run: RunRecord): Promise<RunRecord[]> {
  const chain = [run];
  const byId = new Map((await runsOfPeriod(sql, run.period)).map((r) => [r.id, r]));
  for (let r = run; r.correctsRunId !== null; ) {
    const corrected = byId.get(r.correctsRunId);
    if (corrected === undefined)
      throw new Error(`run ${r.id} corrects run ${r.correctsRunId}, which is not stored`);
    chain.unshift(corrected);
    r = corrected;
  }
  return chain;
}
