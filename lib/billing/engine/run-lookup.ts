import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import type { RunKind, RunStatus } from "./engine-schema.ts";

/** A run as the commands read it; instants canonical. */
export interface RunRecord {
  id: string;
  kind: RunKind;
  period: string;
  corrects_run_id: string | null;
  pricing_model: string;
  currency: string;
  read_at: string | null;
  status: RunStatus;
  stats: Record<string, unknown>;
  error: string | null;
  started_at: string;
  completed_at: string | null;
  finalized_at: string | null;
  /** The adjustment walk the run applied (a correction applies its regular run's). */
  adjustment_relation_types: string[];
  adjustment_depth: number;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const canonical = (c: string) => `to_char(r.${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const runColumns = `r.id::text, r.kind, r.period, r.corrects_run_id::text, r.pricing_model, m.currency,
  ${canonical("read_at")} as read_at, r.status, r.stats, r.error, ${canonical("started_at")} as started_at,
  ${canonical("completed_at")} as completed_at, ${canonical("finalized_at")} as finalized_at,
  r.adjustment_relation_types, r.adjustment_depth`;

function decode(row: RunRecord): RunRecord {
  return { ...row, stats: typeof row.stats === "string" ? JSON.parse(row.stats) : row.stats };
}

export async function findRun(sql: Sql, id: string): Promise<RunRecord | null> {
  if (!uuidPattern.test(id)) return null;
  const rows = await sql.unsafe<RunRecord[]>(
    `select ${runColumns} from runs r join pricing_models m on m.name = r.pricing_model where r.id = $1`,
    [id],
  );
  return rows[0] === undefined ? null : decode(rows[0]);
}

/** The run named by `--run`, or a refusal naming what was given. */
export async function requireRun(sql: Sql, id: string): Promise<RunRecord> {
  const run = await findRun(sql, id);
  if (run === null)
    throw new UsageError(`no run ${JSON.stringify(id)}: engine periods list shows the periods run`);
  return run;
}

export async function runsOfPeriod(sql: Sql, period: string): Promise<RunRecord[]> {
  const rows = await sql.unsafe<RunRecord[]>(
    `select ${runColumns} from runs r join pricing_models m on m.name = r.pricing_model
     where r.period = $1 order by r.started_at, r.id`,
    [period],
  );
  return rows.map(decode);
}

/** The period's finalized regular run, or the latest completed regular run when none is finalized. */
export async function defaultRun(sql: Sql, period: string): Promise<RunRecord | null> {
  const runs = (await runsOfPeriod(sql, period)).filter((r) => r.kind === "regular");
  return (
    runs.find((r) => r.status === "finalized") ??
    runs
      .filter((r) => r.status === "completed")
      .sort((a, b) => (a.completed_at ?? "").localeCompare(b.completed_at ?? ""))
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
    const next = finalized.find((r) => r.corrects_run_id === last.id);
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
  for (let r = run; r.corrects_run_id !== null; ) {
    const corrected = byId.get(r.corrects_run_id);
    if (corrected === undefined)
      throw new Error(`run ${r.id} corrects run ${r.corrects_run_id}, which is not stored`);
    chain.unshift(corrected);
    r = corrected;
  }
  return chain;
}
