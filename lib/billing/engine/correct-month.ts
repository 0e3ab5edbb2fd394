import {
  type CreditNote,
  creditNotes,
  noteOfStatements,
  type StatementFigures,
  standingStatements,
} from "../corrections/credit-note.ts";
import { diffResourceLines, type LineDelta, type NoteOf } from "../corrections/line-delta.ts";
import type { StandingLines } from "../corrections/standing-lines.ts";
import { RunWarnings, type WarningStats } from "../metering/run-warnings.ts";
import { buildStatements, statementProjectOf } from "../statements/build-statements.ts";
import { type PartnerSettlement, partnerSettlements } from "../statements/partner-settlements.ts";
import { ProjectCosts } from "../statements/project-costs.ts";
import { projectKey, Registry, type RegistryProject, type RegistryRelation } from "../statements/registry.ts";
import { emptyTally, type MonthInput, type PriceOptions, type SummedMonth } from "./price-month.ts";
import { type MonthCounts, rateMonth } from "./rate-month.ts";

/**
 * What a correction diffs against, read before it diffs anything: the statements of each run of the
 * finalized chain (the regular run's, then each correction's restated ones) and the lines that stand.
 */
export interface StandingMonth {
  statements: { regular: readonly StatementFigures[]; corrections: readonly (readonly StatementFigures[])[] };
  lines: StandingLines;
}

export interface CorrectionInput extends MonthInput {
  standing: StandingMonth;
}

export interface CorrectionStats extends WarningStats {
  counts: MonthCounts & { deltas: number; adjustment_deltas: number; credit_notes: number };
}

/** A month corrected: what a correction stores once its line deltas are written. */
export interface CorrectedMonth {
  /** Some line or statement moved: the correction is stored (else no run is). */
  moved: boolean;
  notes: CreditNote[];
  /** Per beneficiary, its kickback deltas summed. */
  settlements: PartnerSettlement[];
  stats: CorrectionStats;
}

/**
 * A correction's diff (docs/engine.md#correction-rules): meter → rate → costs, each resource's new
 * lines diffed against the lines that stand (taken from `input.standing`, so nothing is read here),
 * the resources the chain billed that the month no longer meters credited at the end. It yields the
 * line deltas as they are found, for the writer to store, and returns the month's costs. A worker of
 * a correction spread over processes stops here (decision 470): its standing lines are its shard's.
 */
export async function* diffMonth(
  input: CorrectionInput,
  options: PriceOptions,
): AsyncGenerator<LineDelta[], SummedMonth> {
  const oldNote = noteOfStatements(
    standingStatements(input.standing.statements.regular, input.standing.statements.corrections),
  );
  const registry = new Registry(input.projects, input.relations, options.period);
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
  const tally = emptyTally();
  const costs = new ProjectCosts(options.model.plans);
  for await (const batch of rateMonth(input, options, tally)) {
    const found: LineDelta[] = [];
    for (const { resource, rating } of batch) {
      for (const line of rating.lines) costs.add(resource, line);
      const key = {
        cloud: resource.cloud,
        platform: resource.platform,
        resource_type: resource.resource_type,
        resource_id: resource.resource_id,
      };
      const old = input.standing.lines.take(key);
      for (const d of diffResourceLines({ resource: key, old, new: rating.lines, oldNote, newNote }))
        found.push(d);
    }
    if (found.length > 0) yield found;
  }
  const gone: LineDelta[] = [];
  for (const { resource, lines } of input.standing.lines.takeRest()) {
    for (const d of diffResourceLines({ resource, old: lines, new: [], oldNote, newNote })) gone.push(d);
  }
  if (gone.length > 0) yield gone;
  return { costs: costs.costs(), tally };
}

/**
 * The correction's statement step: the month's statements built from its costs, against the standing
 * ones, give the credit notes; the line deltas (every shard's, for a correction spread over
 * processes) list what moved on each.
 */
export function noteMonth(
  summed: SummedMonth,
  deltas: readonly LineDelta[],
  standing: StandingMonth["statements"],
  registry: { projects: readonly RegistryProject[]; relations: readonly RegistryRelation[] },
  options: PriceOptions,
): CorrectedMonth {
  const { tally } = summed;
  const old = standingStatements(standing.regular, standing.corrections);
  const statements = buildStatements(
    summed.costs,
    new Registry(registry.projects, registry.relations, options.period),
    { ...options.statements, plans: options.model },
    tally.warnings,
  );
  const notes = creditNotes(old, statements, deltas);
  return {
    moved: deltas.length > 0 || notes.length > 0,
    notes,
    settlements: partnerSettlements(
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
    ),
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
}

/**
 * A correction's pure pipeline: the diff (`diffMonth`), its deltas yielded as they are found for the
 * writer to store, then the notes (`noteMonth`). It holds no connection and writes nothing: it awaits
 * only its input.
 */
export async function* correctMonth(
  input: CorrectionInput,
  options: PriceOptions,
): AsyncGenerator<LineDelta[], CorrectedMonth> {
  const deltas: LineDelta[] = [];
  const diff = diffMonth(input, options);
  for (;;) {
    const next = await diff.next();
    if (next.done === true) return noteMonth(next.value, deltas, input.standing.statements, input, options);
    for (const d of next.value) deltas.push(d);
    yield next.value;
  }
}
