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
import { type MonthCounts, type RateOptions, rateMonth } from "./rate-month.ts";
import { withMonthSnapshot } from "./reporting-source.ts";
import { CopyQueue, CopyWriter } from "./store/copy-rows.ts";
import { lineDeltasCopy } from "./store/run-rows.ts";
import {
  type LineChain,
  resourceKeyOf,
  standingLinesNotIn,
  standingLinesOf,
} from "./store/standing-lines.ts";
import { writeCreditNotes } from "./store/statement-rows.ts";
import { storedStatements } from "./store/stored-statements.ts";

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
  const seen = new CopyWriter(
    queue,
    `copy ${seenTable} (cloud, platform, resource_type, resource_id) from stdin`,
  );
  const deltaRows = new CopyWriter(queue, lineDeltasCopy);
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
    if (notes.length > 0) await writeCreditNotes(tx, runId, model.currency, notes);
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
