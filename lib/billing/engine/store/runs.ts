import { and, asc, count, desc, eq, getTableColumns, inArray, isNotNull, sql as sqlText } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import type { Sql, TransactionSql } from "postgres";
import { canonicalInstant } from "../../../foundation/postgres/canonical-instant.ts";
import { engineDb } from "./engine-db.ts";
import {
  lineDeltas,
  pricingModels,
  projectBuckets,
  projectUsage,
  type Run,
  ratedLines,
  runShards,
  runs,
  statements,
  usage,
} from "./engine-schema.ts";

type Db = Sql | TransactionSql;

/** A run as the commands read it: its row, instants canonical, and its pricing model's currency. */
export type RunRecord = Run & { currency: string };

const runSelection = {
  ...getTableColumns(runs),
  readAt: canonicalInstant<string | null>(runs.readAt),
  startedAt: canonicalInstant<string>(runs.startedAt),
  completedAt: canonicalInstant<string | null>(runs.completedAt),
  finalizedAt: canonicalInstant<string | null>(runs.finalizedAt),
  currency: pricingModels.currency,
};

const runsWithCurrency = (sql: Db) =>
  engineDb(sql)
    .select(runSelection)
    .from(runs)
    .innerJoin(pricingModels, eq(pricingModels.name, runs.pricingModel));

export async function runById(sql: Db, id: string): Promise<RunRecord | null> {
  const [row] = await runsWithCurrency(sql).where(eq(runs.id, id));
  return row ?? null;
}

/** The runs of a period in the order they started. */
export function runsOfPeriod(sql: Db, period: string): Promise<RunRecord[]> {
  return runsWithCurrency(sql).where(eq(runs.period, period)).orderBy(asc(runs.startedAt), asc(runs.id));
}

/** A new run, `running` from the start; its id (time-ordered, decision 448). */
export async function insertRun(
  sql: Db,
  run: Pick<
    typeof runs.$inferInsert,
    "kind" | "period" | "correctsRunId" | "pricingModel" | "adjustmentRelationTypes" | "adjustmentDepth"
  >,
): Promise<string> {
  const [row] = await engineDb(sql)
    .insert(runs)
    .values({ ...run, status: "running" })
    .returning({ id: runs.id });
  return (row as { id: string }).id;
}

/** The run is complete: its read instant and stats, with the rows written in the same transaction. */
export async function completeRun(sql: Db, id: string, readAt: string, stats: Run["stats"]): Promise<void> {
  await engineDb(sql)
    .update(runs)
    .set({ status: "completed", readAt, completedAt: sqlText`now()`, stats })
    .where(eq(runs.id, id));
}

/**
 * The run failed: the reason is kept (2,000 characters at most) and nothing else, in one transaction:
 * the rows its workers committed, when it was spread over processes (decision 470), go with it, so a
 * failed run looks the same however it ran. The status is set first: a worker still committing holds
 * the run's row (`writeShard`), so its rows are in when they are deleted. A statement the store's
 * handle sent is described by the driver's error (the database's own words), not by drizzle's
 * wrapper, which quotes the statement and its parameters.
 */
export async function failRun(sql: Sql, id: string, error: unknown): Promise<void> {
  const cause = error instanceof DrizzleQueryError && error.cause instanceof Error ? error.cause : error;
  const reason = cause instanceof Error ? cause.message : String(cause);
  await sql.begin(async (tx) => {
    await engineDb(tx)
      .update(runs)
      .set({ status: "failed", error: reason.slice(0, 2000) })
      .where(eq(runs.id, id));
    await discardRows(tx, [id]);
  });
}

/** The per-resource and per-shard rows of failed runs, which only their workers commit. */
async function discardRows(tx: TransactionSql, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const db = engineDb(tx);
  for (const table of [usage, ratedLines, lineDeltas, projectBuckets, projectUsage, runShards])
    await db.delete(table).where(inArray(table.runId, [...ids]));
}

/** A correction that moved nothing leaves no run, nor the shard rows its workers committed (decision 471). */
export async function dropRun(tx: TransactionSql, id: string): Promise<void> {
  await discardRows(tx, [id]);
  await engineDb(tx).delete(runs).where(eq(runs.id, id));
}

/**
 * Runs of the period still `running` when its lock is taken belong to a process that died; what its
 * workers committed goes (`failRun`).
 */
export async function abandonRunning(sql: Sql, period: string): Promise<void> {
  await sql.begin(async (tx) => {
    const abandoned = await engineDb(tx)
      .update(runs)
      .set({ status: "failed", error: "abandoned: its process ended before it completed" })
      .where(and(eq(runs.period, period), eq(runs.status, "running")))
      .returning({ id: runs.id });
    await discardRows(
      tx,
      abandoned.map((r) => r.id),
    );
  });
}

/** Finalizes a completed run; the instant it was finalized at (empty when it was not completed). */
export async function markFinalized(sql: Db, id: string): Promise<string> {
  const [row] = await engineDb(sql)
    .update(runs)
    .set({ status: "finalized", finalizedAt: sqlText`now()` })
    .where(and(eq(runs.id, id), eq(runs.status, "completed")))
    .returning({ at: canonicalInstant<string>(runs.finalizedAt) });
  return row?.at ?? "";
}

/** How many of a run's statements failed (unreadable pricing adjustments). */
export async function failedStatements(sql: Db, runId: string): Promise<number> {
  const [row] = await engineDb(sql)
    .select({ n: count() })
    .from(statements)
    .where(and(eq(statements.runId, runId), isNotNull(statements.error)));
  return row?.n ?? 0;
}

/** Per period with a run: its finalized regular run if any, and its latest run and that run's status. */
export interface PeriodSummary {
  period: string;
  finalized: { id: string; at: string } | null;
  latest: { id: string; status: Run["status"] };
}

export async function periodSummaries(sql: Db): Promise<PeriodSummary[]> {
  const rows = await engineDb(sql)
    .select({
      period: runs.period,
      id: runs.id,
      kind: runs.kind,
      status: runs.status,
      finalizedAt: canonicalInstant<string | null>(runs.finalizedAt),
    })
    .from(runs)
    .orderBy(asc(runs.period), desc(runs.startedAt), desc(runs.id));
  const summaries: PeriodSummary[] = [];
  for (const r of rows) {
    let summary = summaries.at(-1);
    if (summary?.period !== r.period) {
      summary = { period: r.period, finalized: null, latest: { id: r.id, status: r.status } };
      summaries.push(summary);
    }
    if (r.kind === "regular" && r.status === "finalized")
      summary.finalized = { id: r.id, at: r.finalizedAt as string };
  }
  return summaries;
}
