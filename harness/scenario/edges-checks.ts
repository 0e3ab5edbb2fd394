import type { RegistrySnapshot } from "../../lib/billing/compare/registry-snapshot.ts";
import type { OracleBill } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { decimal } from "../../lib/foundation/money/decimal.ts";
import { type Check, check } from "./check.ts";
import { adjustmentWalk } from "./registry-plan.ts";

const hour = 3_600_000;

const moved = (delta: string | undefined) => delta !== undefined && !decimal(delta).eq(0);

/** The money-edges month's own reading of a run: the oracle's bill of it, with its findings. */
export interface EdgesSeen {
  bill: OracleBill;
}

interface Item {
  resource_type: string;
  resource_id: string;
  dimensions: Record<string, { delta: string }>;
}

/** A statement or a credit note of the export, the members these checks read. */
interface Total {
  cloud: string;
  project_id: string;
  adjustments?: { type: string; relation_id?: string; scope?: string; delta?: string }[];
  related_costs?: { project_id: string; line_items?: Item[] }[];
  line_items?: Item[];
}

/** What a run observed, the part these checks read (the runner's `Observed` has it all). */
export interface EdgesObserved {
  oracle: { period_from: string; period_to: string };
  run: { codes: Record<string, number> };
  statements: readonly Total[];
  correction?: { output: { codes: Record<string, number> } | null; creditNotes?: readonly Total[] };
  registry?: { made: { snapshot: RegistrySnapshot } };
  edges?: EdgesSeen;
}

type Snapshot = RegistrySnapshot;

/** Every adjustment line of the finalized statements, with the statement it is on. */
function linesOf(statements: readonly Total[]) {
  return statements.flatMap((s) => (s.adjustments ?? []).map((line) => ({ statement: s, line })));
}

function kickbackCheck(observed: EdgesObserved, bill: OracleBill, snapshot: Snapshot): Check {
  const platform = new Map(snapshot.projects.map((p) => [p.id, p.platform]));
  const toGroups = new Set(
    snapshot.relations
      .filter((r) => platform.get(r.target_id) !== "partner")
      .filter((r) => JSON.stringify(r.metadata.pricing_adjustments ?? []).includes('"kickback"'))
      .map((r) => r.id),
  );
  const lines = linesOf(observed.statements).filter(({ line }) => toGroups.has(line.relation_id ?? ""));
  const kept = lines.filter(({ line }) => line.type !== "kickback").length;
  const paid = lines.length - kept;
  const warned = observed.run.codes.adjustment_kickback_target_not_partner ?? 0;
  const dropped = bill.findings.kickbacksDropped;
  return check(
    warned > 0 && warned === dropped && kept > 0 && paid === 0,
    `kickbacks to a project that is not a partner are dropped: the engine warned adjustment_kickback_target_not_partner ${warned} times, the oracle dropped ${dropped}; the ${kept} other adjustments of those relations were kept and no kickback was billed`,
    [
      `warned ${warned}, dropped ${dropped}, other adjustments kept ${kept}, kickbacks billed ${paid}`,
      ...(warned === 0 ? ["no kickback to a non-partner occurred: the month missed the case"] : []),
    ],
  );
}

function walkCheck(observed: EdgesObserved, bill: OracleBill): Check {
  const { deepestLevel, metAgain, beyond } = bill.findings;
  const seen = new Map<string, number>();
  for (const { statement, line } of linesOf(observed.statements)) {
    const key = `${statement.cloud}/${statement.project_id} ${line.relation_id} ${line.type} ${line.scope}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const twice = [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} billed ${n} times`);
  return check(
    deepestLevel >= adjustmentWalk.depth && metAgain > 0 && beyond > 0 && twice.length === 0,
    `the adjustment walk applied relations ${deepestLevel} levels deep (SVC_ENGINE_ADJUSTMENT_DEPTH ${adjustmentWalk.depth}), met ${metAgain} relations again by a second way and billed each once, and left ${beyond} past the depth unbilled`,
    [`deepest level ${deepestLevel}, met again ${metAgain}, past the depth ${beyond}`, ...twice],
  );
}

/**
 * Relations in force for part of the month, each billed as if in force for all of it (decision 410):
 * counted by how they start and end, each in-force one billed (an attribution: its tenant on its
 * manager's statement), a re-opened triple by its later relation only, one touching the month only
 * at an edge by none.
 */
function spansCheck(observed: EdgesObserved, snapshot: Snapshot): Check {
  const from = Date.parse(observed.oracle.period_from);
  const to = Date.parse(observed.oracle.period_to);
  const byId = new Map(snapshot.projects.map((p) => [p.id, p]));
  const billedIds = new Set(linesOf(observed.statements).map(({ line }) => line.relation_id));
  const billed = (r: Snapshot["relations"][number]) => {
    if (r.relation_type !== "infrastructure_tenant") return billedIds.has(r.id);
    const manager = byId.get(r.source_id);
    const tenant = byId.get(r.target_id);
    return observed.statements.some(
      (s) =>
        s.project_id === manager?.external_id &&
        (s.related_costs ?? []).some((c) => c.project_id === tenant?.external_id),
    );
  };
  const spans = snapshot.relations.map((r) => {
    const start = Date.parse(r.valid_from);
    const end = r.valid_to === null ? null : Date.parse(r.valid_to);
    return {
      r,
      start,
      end,
      inForce: start < to && (end === null || end > from),
      startsMid: start > from && start < to,
      endsMid: end !== null && end > from && end < to,
    };
  });
  const triples = new Map<string, typeof spans>();
  for (const s of spans.filter((x) => x.inForce)) {
    const key = `${s.r.source_id} ${s.r.target_id} ${s.r.relation_type}`;
    triples.set(key, [...(triples.get(key) ?? []), s]);
  }
  const superseded = new Set(
    [...triples.values()]
      .filter((list) => list.length > 1)
      .flatMap((list) => [...list].sort((a, b) => b.start - a.start).slice(1))
      .map((s) => s.r.id),
  );
  const partial = spans.filter((s) => s.inForce && (s.startsMid || s.endsMid));
  const edges = spans.filter((s) => !s.inForce && (s.end === from || s.start === to));
  const count = (list: typeof spans, f: (s: (typeof spans)[number]) => boolean) => list.filter(f).length;
  const counts = {
    startsOn: count(partial, (s) => s.startsMid && s.start % hour === 0),
    startsOff: count(partial, (s) => s.startsMid && s.start % hour !== 0),
    endsOn: count(partial, (s) => s.endsMid && (s.end ?? 0) % hour === 0),
    endsOff: count(partial, (s) => s.endsMid && (s.end ?? 0) % hour !== 0),
    attributions: count(partial, (s) => s.r.relation_type === "infrastructure_tenant"),
    reopened: superseded.size,
    edges: edges.length,
  };
  const wrong = [
    ...partial
      .filter((s) => !superseded.has(s.r.id) && !billed(s.r))
      .map((s) => `relation ${s.r.id} (${s.r.valid_from} to ${s.r.valid_to}) is in force and billed nowhere`),
    ...[...edges, ...spans.filter((s) => superseded.has(s.r.id))]
      .filter((s) => s.r.relation_type !== "infrastructure_tenant" && billed(s.r))
      .map((s) => `relation ${s.r.id} (${s.r.valid_from} to ${s.r.valid_to}) is billed and must not be`),
  ];
  const missing = Object.entries(counts)
    .filter(([, n]) => n === 0)
    .map(([k]) => `no ${k}: the month missed the case`);
  return check(
    missing.length === 0 && wrong.length === 0,
    `relations in force for part of the month bill as in force for all of it: ${counts.startsOn + counts.startsOff} from mid-month (${counts.startsOn} on the hour, ${counts.startsOff} off it), ${counts.endsOn + counts.endsOff} until mid-month (${counts.endsOn} on the hour, ${counts.endsOff} off it), ${counts.attributions} of them attributions; ${counts.reopened} closed and re-opened, billed by the later only; ${counts.edges} touching the month only at an edge, billed nowhere`,
    [...missing, ...wrong],
  );
}

function unpricedCheck(observed: EdgesObserved, bill: OracleBill): Check {
  // The correction meters the complete month, the held share's resources too.
  const codes = observed.correction?.output?.codes ?? observed.run.codes;
  const types = codes.resource_type_not_priced ?? 0;
  const states = codes.state_not_priced ?? 0;
  const { unpricedTypes, unpricedStates } = bill.findings;
  return check(
    unpricedTypes > 0 && unpricedStates > 0 && types === unpricedTypes && states === unpricedStates,
    `what the model does not price bills nothing and loses nothing: ${unpricedTypes} resources of an unpriced type (resource_type_not_priced ${types}) and ${unpricedStates} that passed through an unpriced state (state_not_priced ${states}), their events stored and their priced hours billed as the oracle's`,
    [`the oracle finds ${unpricedTypes} and ${unpricedStates}; the engine warned ${types} and ${states}`],
  );
}

/** Credit-note deltas whose new figure lay on half a cent in the oracle's bill of the complete month. */
function noteTies(notes: readonly Total[], bill: OracleBill): number {
  const statements = new Map((bill.statements ?? []).map((s) => [`${s.cloud}/${s.project_id}`, s]));
  let ties = 0;
  for (const note of notes) {
    const statement = statements.get(`${note.cloud}/${note.project_id}`);
    for (const a of note.adjustments ?? []) {
      const line = statement?.adjustments.find(
        (x) => x.relation_id === a.relation_id && x.type === a.type && x.scope === a.scope,
      );
      if (moved(a.delta) && line !== undefined && (line.tie || line.shares.some((s) => s.tie))) ties += 1;
    }
    const owned = [
      { project: note.project_id, items: note.line_items ?? [] },
      ...(note.related_costs ?? []).map((r) => ({ project: r.project_id, items: r.line_items ?? [] })),
    ];
    for (const { project, items } of owned)
      for (const item of items)
        for (const [dimension, { delta }] of Object.entries(item.dimensions)) {
          const rating = bill.resources.get(`${item.resource_type}/${item.resource_id}`);
          const line = rating?.lines.find((l) => l.project_id === project && l.dimension === dimension);
          if (moved(delta) && line?.tie === true) ties += 1;
        }
  }
  return ties;
}

function tiesCheck(observed: EdgesObserved, bill: OracleBill): Check {
  const { lineTies, adjustmentTies, shareTies } = bill.findings;
  const notes = noteTies(observed.correction?.creditNotes ?? [], bill);
  return check(
    lineTies > 0 && adjustmentTies > 0 && shareTies > 0 && notes > 0,
    `amounts exactly on half a cent, rounded half away from zero as the oracle rounds them: ${lineTies} rated lines, ${adjustmentTies} adjustment lines, ${shareTies} apportioned shares, ${notes} credit-note deltas`,
    [
      `rated lines ${lineTies}, adjustment lines ${adjustmentTies}, shares ${shareTies}, credit-note deltas ${notes}`,
    ],
  );
}

function movedCheck(observed: EdgesObserved): Check {
  const notes = observed.correction?.creditNotes ?? [];
  const types = ["surcharge", "discount", "project_discount", "kickback"];
  const deltas = types.map(
    (type) =>
      notes.flatMap((n) => n.adjustments ?? []).filter((a) => a.type === type && moved(a.delta)).length,
  );
  return check(
    deltas.every((n) => n > 0),
    `the correction moves every adjustment type: ${types.map((t, i) => `${t} ${deltas[i]}`).join(", ")} deltas on ${notes.length} credit notes`,
    types.filter((_, i) => deltas[i] === 0).map((t) => `no ${t} moved: the held share missed it`),
  );
}

/**
 * The money-edges checks (decision 546): each case of issue 29 named and counted, a case that did not
 * occur failing the run as surely as a wrong amount. Amounts themselves are `compare`'s: the statements,
 * notes and kickbacks equal the oracle's, which prices these cases on its own.
 */
export function edgesChecks(observed: EdgesObserved): Check[] {
  const bill = observed.edges?.bill;
  const snapshot = observed.registry?.made.snapshot;
  if (bill === undefined || snapshot === undefined)
    return [check(false, "the money edges occurred", ["no oracle bill or registry was read"])];
  return [
    kickbackCheck(observed, bill, snapshot),
    walkCheck(observed, bill),
    spansCheck(observed, snapshot),
    unpricedCheck(observed, bill),
    tiesCheck(observed, bill),
    movedCheck(observed),
  ];
}
