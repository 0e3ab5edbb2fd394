import { compare } from "../../foundation/collections/compare.ts";
import { groupBy } from "../../foundation/collections/group-by.ts";
import { type Decimal, zero } from "../../foundation/money/decimal.ts";
import { adjustmentOrder } from "../statements/adjustment.ts";
import { type AdjustmentLine, emptyStatement, type Statement } from "../statements/build-statements.ts";
import { checkCreditNote } from "../statements/money-invariants.ts";
import { projectKey } from "../statements/registry.ts";
import type { PlanFigures } from "../statements/statement-plan.ts";
import type { LineDelta, NoteOf } from "./line-delta.ts";

/** An adjustment line as a correction compares it: what it is and what it came to. */
export type AdjustmentFigures = Pick<
  AdjustmentLine,
  | "type"
  | "relation_type"
  | "relation_target"
  | "relation_target_cloud"
  | "relation_id"
  | "scope"
  | "description"
  | "rate"
  | "base"
  | "amount"
>;

/** A statement as a correction compares it (a stored one, or one the correction just built). */
export type StatementFigures = Pick<
  Statement,
  | "cloud"
  | "project_id"
  | "registry_id"
  | "base_cost"
  | "net_cost"
  | "kickback_total"
  | "total"
  | "related"
  | "error"
> & { adjustments: readonly AdjustmentFigures[]; plan: PlanFigures | null };

/** An adjustment line whose base moved: its old and new amount (the rate applied to the old and the corrected base). */
export interface AdjustmentDelta {
  type: AdjustmentLine["type"];
  relation_type: string;
  relation_target: string;
  relation_target_cloud: string;
  relation_id: string;
  scope: string;
  rate: Decimal;
  old_base: Decimal;
  new_base: Decimal;
  old: Decimal;
  new: Decimal;
  delta: Decimal;
}

/** A plan line whose amount moved: a tier line (by its dimension's path) or a top-up (by its scope). */
export interface PlanLineDelta {
  old: Decimal;
  new: Decimal;
  delta: Decimal;
}

export interface PlanDeltas {
  tier_lines: (PlanLineDelta & { dimension: string })[];
  minimums: (PlanLineDelta & { scope: string })[];
}

/** An attributed tenant's deltas on its cluster manager's note. */
export interface RelatedDelta {
  relation_type: string;
  relation_id: string;
  cloud: string;
  project_id: string;
  total: Decimal;
}

/**
 * The credit note of one statement (docs/engine.md#credit-notes): what the correction moved on it. `total`
 * is negative for a credit, positive for a debit.
 */
export interface CreditNote {
  cloud: string;
  project_id: string;
  registry_id: string | null;
  /** The note's own lines that moved, then its attributed tenants', in (project, resource, dimension) order. */
  lines: LineDelta[];
  base_delta: Decimal;
  adjustments: AdjustmentDelta[];
  /** The plan lines that moved (decision 467); null when none did. */
  plan: PlanDeltas | null;
  net_delta: Decimal;
  kickback_delta: Decimal;
  related: RelatedDelta[];
  total: Decimal;
  /** The corrected statement failed (unreadable adjustments): the note's numbers are unadjusted. */
  error: string | null;
  /** The statement as the correction states it (an empty one when nothing is billed to it any more). */
  corrected: Statement;
}

/**
 * Pairs old and new adjustment lines: one line is a (relation, type, scope, rate), and the n-th of
 * identical ones in application order pairs with the n-th, so two equal discounts of one relation
 * stay two lines.
 */
function pairAdjustments(
  old: readonly AdjustmentFigures[],
  corrected: readonly AdjustmentFigures[],
): { old?: AdjustmentFigures; new?: AdjustmentFigures }[] {
  const identity = (a: AdjustmentFigures) =>
    `${a.relation_id}\u0000${a.type}\u0000${a.scope}\u0000${a.rate.toFixed()}`;
  const pairs = new Map<string, { old?: AdjustmentFigures; new?: AdjustmentFigures }>();
  const place = (lines: readonly AdjustmentFigures[], side: "old" | "new") => {
    const seen = new Map<string, number>();
    for (const line of lines) {
      const id = identity(line);
      const n = seen.get(id) ?? 0;
      seen.set(id, n + 1);
      const key = `${id}\u0000${n}`;
      pairs.set(key, { ...pairs.get(key), [side]: line });
    }
  };
  place(old, "old");
  place(corrected, "new");
  return [...pairs.values()];
}

function adjustmentDeltas(old: StatementFigures, corrected: StatementFigures): AdjustmentDelta[] {
  const deltas: AdjustmentDelta[] = [];
  for (const pair of pairAdjustments(old.adjustments, corrected.adjustments)) {
    const line = (pair.new ?? pair.old) as AdjustmentFigures;
    const oldBase = pair.old?.base ?? zero;
    const newBase = pair.new?.base ?? zero;
    const oldAmount = pair.old?.amount ?? zero;
    const newAmount = pair.new?.amount ?? zero;
    if (pair.old !== undefined && pair.new !== undefined && oldBase.eq(newBase) && oldAmount.eq(newAmount))
      continue;
    deltas.push({
      type: line.type,
      relation_type: line.relation_type,
      relation_target: line.relation_target,
      relation_target_cloud: line.relation_target_cloud,
      relation_id: line.relation_id,
      scope: line.scope,
      rate: line.rate,
      old_base: oldBase,
      new_base: newBase,
      old: oldAmount,
      new: newAmount,
      delta: newAmount.minus(oldAmount),
    });
  }
  // Application order (docs/engine.md#adjustments, rule 2).
  return deltas.sort(
    (a, b) =>
      adjustmentOrder.indexOf(a.type) - adjustmentOrder.indexOf(b.type) ||
      compare(a.relation_id, b.relation_id),
  );
}

/** Each named amount that differs between the two sides (one missing counts as zero), in the new side's order, then the gone ones'. */
function movedAmounts(
  old: ReadonlyMap<string, Decimal>,
  corrected: ReadonlyMap<string, Decimal>,
): (PlanLineDelta & { name: string })[] {
  const out: (PlanLineDelta & { name: string })[] = [];
  for (const name of new Set([...corrected.keys(), ...old.keys()])) {
    const before = old.get(name) ?? zero;
    const after = corrected.get(name) ?? zero;
    if (!before.eq(after)) out.push({ name, old: before, new: after, delta: after.minus(before) });
  }
  return out;
}

/** The plan lines that moved between two statements: tier lines by dimension, top-ups by scope. */
function planDeltas(old: StatementFigures, corrected: StatementFigures): PlanDeltas | null {
  const amounts = <L extends { amount: Decimal }>(lines: readonly L[] | undefined, name: (l: L) => string) =>
    new Map((lines ?? []).map((l) => [name(l), l.amount]));
  const tiers = movedAmounts(
    amounts(old.plan?.tier_lines, (l) => l.dimension),
    amounts(corrected.plan?.tier_lines, (l) => l.dimension),
  ).map(({ name, ...d }) => ({ dimension: name, ...d }));
  const minimums = movedAmounts(
    amounts(old.plan?.minimums, (l) => l.scope),
    amounts(corrected.plan?.minimums, (l) => l.scope),
  ).map(({ name, ...d }) => ({ scope: name, ...d }));
  return tiers.length === 0 && minimums.length === 0 ? null : { tier_lines: tiers, minimums };
}

/**
 * Where each project's lines counted in stored statements: an attributed tenant on the statement that
 * lists it under `related`, any other project on its own.
 */
export function noteOfStatements(statements: readonly StatementFigures[]): NoteOf {
  const tenants = new Map<string, { cloud: string; project_id: string }>();
  for (const s of statements) {
    for (const r of s.related)
      tenants.set(projectKey(r.cloud, r.project_id), { cloud: s.cloud, project_id: s.project_id });
  }
  return (cloud, projectId) => tenants.get(projectKey(cloud, projectId)) ?? { cloud, project_id: projectId };
}

/**
 * The credit notes of a correction (pure; docs/engine.md#credit-notes): one per statement a delta reached,
 * comparing the statement that stood (`old`) with the one the correction states (`corrected`) and
 * listing the line deltas that count on it (those whose amount moved). Every member follows from those two statements and the
 * lines: `base_delta` is the corrected base less the old, which is also the sum of the line deltas and
 * of the plan lines' deltas (a tier line or a top-up whose amount moved is listed in `plan`);
 * an adjustment is listed when its base moved (or it appeared or went), with the rate applied to the
 * corrected base or net as its new amount; `net_delta` is the base delta plus the deltas of the lines
 * that change the net (surcharges and discounts); `kickback_delta` is the kickbacks' delta beside it;
 * `total` equals `net_delta`. Each note is checked as it is built: one that does not
 * throws `MoneyInvariantError` (decision 468). Notes come in (cloud, project) order.
 */
export function creditNotes(
  old: readonly StatementFigures[],
  corrected: readonly Statement[],
  deltas: readonly LineDelta[],
): CreditNote[] {
  const oldByKey = new Map(old.map((s) => [projectKey(s.cloud, s.project_id), s]));
  const newByKey = new Map(corrected.map((s) => [projectKey(s.cloud, s.project_id), s]));
  const linesByNote = groupBy(
    deltas.filter((d) => !d.delta.eq(0)),
    (d) => projectKey(d.note_cloud, d.note_project_id),
  );
  const keys = new Set([...oldByKey.keys(), ...newByKey.keys(), ...linesByNote.keys()]);
  const notes: CreditNote[] = [];
  for (const key of keys) {
    const before = oldByKey.get(key);
    const after = newByKey.get(key);
    const lines = linesByNote.get(key) ?? [];
    const any = (before ?? after ?? lines[0]) as StatementFigures | LineDelta;
    const cloud = "note_cloud" in any ? any.note_cloud : any.cloud;
    const projectId = "note_project_id" in any ? any.note_project_id : any.project_id;
    const registryId = after?.registry_id ?? before?.registry_id ?? null;
    const o = before ?? emptyStatement(cloud, projectId, registryId);
    const n: Statement = after ?? emptyStatement(cloud, projectId, registryId);
    const adjustments = adjustmentDeltas(o, n);
    const plan = planDeltas(o, n);
    const moved =
      lines.length > 0 ||
      adjustments.length > 0 ||
      plan !== null ||
      !o.base_cost.eq(n.base_cost) ||
      !o.net_cost.eq(n.net_cost) ||
      !o.kickback_total.eq(n.kickback_total) ||
      o.error !== n.error;
    if (!moved) continue;
    const own = sortLines(lines.filter((l) => l.cloud === cloud && l.project_id === projectId));
    const tenants = sortLines(lines.filter((l) => !(l.cloud === cloud && l.project_id === projectId)));
    const related: RelatedDelta[] = [];
    for (const l of tenants) {
      const last = related.at(-1);
      if (last !== undefined && last.cloud === l.cloud && last.project_id === l.project_id) {
        last.total = last.total.plus(l.delta);
        continue;
      }
      const relation =
        n.related.find((r) => r.cloud === l.cloud && r.project_id === l.project_id) ??
        o.related.find((r) => r.cloud === l.cloud && r.project_id === l.project_id);
      related.push({
        relation_type: relation?.relation_type ?? "",
        relation_id: relation?.relation_id ?? "",
        cloud: l.cloud,
        project_id: l.project_id,
        total: l.delta,
      });
    }
    const base = n.base_cost.minus(o.base_cost);
    const note: CreditNote = {
      cloud,
      project_id: projectId,
      registry_id: registryId,
      lines: [...own, ...tenants],
      base_delta: base,
      adjustments,
      plan,
      net_delta: n.net_cost.minus(o.net_cost),
      kickback_delta: n.kickback_total.minus(o.kickback_total),
      related,
      total: n.total.minus(o.total),
      error: n.error,
      corrected: n,
    };
    checkCreditNote(note);
    notes.push(note);
  }
  return notes.sort((a, b) => compare(a.cloud, b.cloud) || compare(a.project_id, b.project_id));
}

function sortLines(lines: readonly LineDelta[]): LineDelta[] {
  return [...lines].sort(
    (a, b) =>
      compare(a.cloud, b.cloud) ||
      compare(a.project_id, b.project_id) ||
      compare(a.resource_type, b.resource_type) ||
      compare(a.resource_id, b.resource_id) ||
      compare(a.dimension, b.dimension),
  );
}

/**
 * The statements that stand once the corrections of a chain are applied in order (pure): a statement
 * a correction restated (every note's `corrected`) replaces the one before it.
 */
export function standingStatements(
  regular: readonly StatementFigures[],
  corrections: readonly (readonly StatementFigures[])[],
): StatementFigures[] {
  const standing = new Map(regular.map((s) => [projectKey(s.cloud, s.project_id), s]));
  for (const restated of corrections)
    for (const s of restated) standing.set(projectKey(s.cloud, s.project_id), s);
  return [...standing.values()].sort(
    (a, b) => compare(a.cloud, b.cloud) || compare(a.project_id, b.project_id),
  );
}
