import type { Sql, TransactionSql } from "postgres";
import { formatMoney, formatQuantity, formatRate } from "../../foundation/money/decimal.ts";
import {
  type CreditNote,
  creditNotes,
  noteOfStatements,
  standingStatements,
} from "../corrections/credit-note.ts";
import { diffResourceLines, type LineDelta, type NoteOf } from "../corrections/line-delta.ts";
import { RunWarnings, type WarningStats } from "../metering/run-warnings.ts";
import {
  buildStatements,
  type StatementOptions,
  statementProjectOf,
} from "../statements/build-statements.ts";
import { ProjectCosts } from "../statements/project-costs.ts";
import { projectKey, Registry } from "../statements/registry.ts";
import { CopyQueue, CopyWriter } from "./copy-rows.ts";
import { type MonthCounts, type RateOptions, rateMonth } from "./rate-month.ts";
import { withMonthSnapshot } from "./reporting-source.ts";
import { type LineChain, resourceKeyOf, standingLinesNotIn, standingLinesOf } from "./standing-lines.ts";
import { insertAll, writeSettlements, writeStatements } from "./statement-rows.ts";
import { storedStatements } from "./stored-statements.ts";

export interface CorrectionOptions extends RateOptions {
  /** The engine database outside the correction's transaction: the corrected runs' rows, committed. */
  engine: Sql;
  reporting: Sql;
  statements: StatementOptions;
  /** The regular run and its finalized corrections, in order: the numbers that stand. */
  chain: LineChain;
}

export interface CorrectionStats extends WarningStats {
  counts: MonthCounts & { deltas: number; adjustment_deltas: number; credit_notes: number };
}

export interface ComputedCorrection {
  /** Some line or statement moved: the correction is stored (else no run is). */
  moved: boolean;
  readAt: string;
  stats: CorrectionStats;
  notes: CreditNote[];
}

const seenTable = "correction_seen";

/**
 * Meters a month again in full and diffs it against the numbers that stand (docs/engine.md#correction-rules),
 * inside the caller's engine transaction: resource by resource, batch by batch, each resource's new
 * lines against its standing lines (read from the committed rows of the chain); the resources the
 * chain billed that this read no longer meters are credited at the end; then the month's statements
 * against the standing ones give the credit notes. Only the line deltas, the notes, their adjustment
 * deltas, the statements they restate and the settlement's deltas are written; when nothing moved
 * nothing is, and the caller stores no run.
 */
// size: split pending (issue 27, helper money)
export async function computeCorrection(
  tx: TransactionSql,
  runId: string,
  options: CorrectionOptions,
): Promise<ComputedCorrection> {
  const { chain, model } = options;
  const old = standingStatements(
    await storedStatements(options.engine, chain.regular),
    await Promise.all(chain.corrections.map((id) => storedStatements(options.engine, id))),
  );
  const oldNote = noteOfStatements(old);
  const tally = {
    warnings: new RunWarnings(),
    counts: { resources: 0, candidates: 0, usage_records: 0, rated_records: 0 },
  };
  await tx.unsafe(
    `create temporary table ${seenTable} (cloud text, platform text, resource_type text, resource_id text) on commit drop`,
  );
  const queue = new CopyQueue(tx);
  const seen = new CopyWriter(queue, seenTable, ["cloud", "platform", "resource_type", "resource_id"]);
  const deltaRows = new CopyWriter(queue, "line_deltas", [
    "run_id",
    "note_cloud",
    "note_project_id",
    "cloud",
    "platform",
    "resource_type",
    "resource_id",
    "project_id",
    "dimension",
    "unit_price",
    "old_quantity",
    "new_quantity",
    "old_amount",
    "new_amount",
    "delta",
  ]);
  const deltas: LineDelta[] = [];
  const keep = async (found: LineDelta[]) => {
    for (const d of found) {
      deltas.push(d);
      await deltaRows.add([
        runId,
        d.note_cloud,
        d.note_project_id,
        d.cloud,
        d.platform,
        d.resource_type,
        d.resource_id,
        d.project_id,
        d.dimension,
        formatRate(d.unit_price),
        formatQuantity(d.old_quantity),
        formatQuantity(d.new_quantity),
        formatMoney(d.old_amount),
        formatMoney(d.new_amount),
        formatMoney(d.delta),
      ]);
    }
  };
  const costs = new ProjectCosts();

  return withMonthSnapshot(options.reporting, options.period, async (snapshot) => {
    const registry = new Registry(snapshot.projects, snapshot.relations, options.period);
    const attribution = new Map<string, { cloud: string; project_id: string }>();
    // Attribution warnings are counted once, when the statements are built.
    const uncounted = new RunWarnings();
    const newNote: NoteOf = (cloud, projectId) => {
      const key = projectKey(cloud, projectId);
      let note = attribution.get(key);
      if (note === undefined) {
        note = statementProjectOf(registry, cloud, projectId, uncounted);
        attribution.set(key, note);
      }
      return note;
    };
    for await (const batch of rateMonth(snapshot.rows, options, tally)) {
      const standing = await standingLinesOf(
        options.engine,
        chain,
        batch.map((b) => b.resource),
      );
      for (const { resource, rating } of batch) {
        await seen.add([resource.cloud, resource.platform, resource.resource_type, resource.resource_id]);
        for (const line of rating.lines) costs.add(resource, line.project_id, line.amount);
        const key = {
          cloud: resource.cloud,
          platform: resource.platform,
          resource_type: resource.resource_type,
          resource_id: resource.resource_id,
        };
        await keep(
          diffResourceLines({
            resource: key,
            old: standing.get(resourceKeyOf(resource)) ?? [],
            new: rating.lines,
            oldNote,
            newNote,
          }),
        );
      }
    }
    await seen.flush();
    await queue.drain();
    for (const gone of await standingLinesNotIn(tx, chain, seenTable)) {
      await keep(diffResourceLines({ resource: gone.resource, old: gone.lines, new: [], oldNote, newNote }));
    }
    await deltaRows.flush();
    await queue.drain();
    const statements = buildStatements(costs.costs(), registry, options.statements, tally.warnings);
    const notes = creditNotes(old, statements, deltas);
    if (notes.length > 0) await writeNotes(tx, runId, model.currency, notes);
    return {
      moved: deltas.length > 0 || notes.length > 0,
      readAt: snapshot.readAt,
      notes,
      stats: {
        ...tally.warnings.stats(),
        counts: {
          ...tally.counts,
          deltas: deltas.length,
          adjustment_deltas: notes.reduce((n, note) => n + note.adjustments.length, 0),
          credit_notes: notes.length,
        },
      },
    };
  });
}

/** The notes, their adjustment deltas, the statements they restate and the settlement's deltas. */
async function writeNotes(
  tx: TransactionSql,
  runId: string,
  currency: string,
  notes: readonly CreditNote[],
): Promise<void> {
  await insertAll(
    tx,
    "credit_notes",
    notes.map((n) => ({
      run_id: runId,
      cloud: n.cloud,
      project_id: n.project_id,
      registry_id: n.registry_id,
      currency,
      base_delta: formatMoney(n.base_delta),
      net_delta: formatMoney(n.net_delta),
      kickback_delta: formatMoney(n.kickback_delta),
      total: formatMoney(n.total),
      related: JSON.stringify(n.related.map((r) => ({ ...r, total: formatMoney(r.total) }))),
      error: n.error,
    })),
  );
  await insertAll(
    tx,
    "adjustment_deltas",
    notes.flatMap((n) =>
      n.adjustments.map((a, seq) => ({
        run_id: runId,
        cloud: n.cloud,
        project_id: n.project_id,
        seq,
        type: a.type,
        relation_type: a.relation_type,
        relation_target: a.relation_target,
        relation_target_cloud: a.relation_target_cloud,
        relation_id: a.relation_id,
        scope: a.scope,
        rate: formatRate(a.rate),
        old_base: formatMoney(a.old_base),
        new_base: formatMoney(a.new_base),
        old_amount: formatMoney(a.old),
        new_amount: formatMoney(a.new),
        delta: formatMoney(a.delta),
      })),
    ),
  );
  await writeStatements(
    tx,
    runId,
    currency,
    notes.map((n) => n.corrected),
  );
  await writeSettlements(
    tx,
    runId,
    currency,
    notes.flatMap((n) =>
      n.adjustments
        .filter((a) => a.type === "kickback")
        .map((a) => ({
          beneficiary_cloud: a.relation_target_cloud,
          beneficiary: a.relation_target,
          cloud: n.cloud,
          project_id: n.project_id,
          amount: a.delta,
        })),
    ),
  );
}
