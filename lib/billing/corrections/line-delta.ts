import { compare } from "../../foundation/collections/compare.ts";
import { type Decimal, zero } from "../../foundation/money/decimal.ts";
import type { ResourceKey } from "../metering/meter-resource.ts";
import { projectKey } from "../statements/registry.ts";

/** One rated line of a resource (its usage of one dimension while one project owned it), one side of a diff. */
export interface LineFigures {
  project_id: string;
  dimension: string;
  quantity: Decimal;
  unit_price: Decimal;
  amount: Decimal;
}

/** The (cloud, project) of the statement, and so of the credit note, a line counts on. */
interface NoteKey {
  note_cloud: string;
  note_project_id: string;
}

/**
 * A rated line whose amount moved: its old and new figures and the amount's delta (new minus old, never
 * zero), on the credit note of the statement it counts on. A line whose quantity moved by less than a
 * cent's worth has no delta: the correction stores only non-zero deltas (docs/engine.md#correction-rules,
 * rule 1), so the finalized line stands, quantity and all (decision 426).
 */
export interface LineDelta extends ResourceKey, NoteKey {
  project_id: string;
  dimension: string;
  unit_price: Decimal;
  old_quantity: Decimal;
  new_quantity: Decimal;
  old_amount: Decimal;
  new_amount: Decimal;
  delta: Decimal;
}

/** Where a project's lines count: its own statement, or its cluster manager's. */
export type NoteOf = (cloud: string, projectId: string) => { cloud: string; project_id: string };

interface ResourceDiff {
  resource: ResourceKey;
  old: readonly LineFigures[];
  new: readonly LineFigures[];
  /** Where a project's lines counted in the run corrected (its stored statements say). */
  oldNote: NoteOf;
  /** Where they count now (the registry the correction read). */
  newNote: NoteOf;
}

/**
 * The deltas of one resource (pure; docs/engine.md#correction-rules, rule 1): its lines per note, project and
 * dimension, old against new, where the amounts differ. A project whose attribution did not change
 * counts on one note, so this is the plain diff per resource, project and dimension; one whose
 * attribution moved has its old lines leave the old note and its new lines join the new one, so every
 * note's base delta is the sum of its line deltas (decision 426). A line moved when its amount did: a
 * quantity that moved without moving the amount is no delta.
 */
export function diffResourceLines(diff: ResourceDiff): LineDelta[] {
  const { resource } = diff;
  const cells = new Map<string, LineDelta>();
  const cell = (line: LineFigures, note: { cloud: string; project_id: string }): LineDelta => {
    const key = `${projectKey(note.cloud, note.project_id)}\u0000${line.project_id}\u0000${line.dimension}`;
    let held = cells.get(key);
    if (held === undefined) {
      held = {
        ...resource,
        note_cloud: note.cloud,
        note_project_id: note.project_id,
        project_id: line.project_id,
        dimension: line.dimension,
        unit_price: line.unit_price,
        old_quantity: zero,
        new_quantity: zero,
        old_amount: zero,
        new_amount: zero,
        delta: zero,
      };
      cells.set(key, held);
    }
    return held;
  };
  for (const line of diff.old) {
    const held = cell(line, diff.oldNote(resource.cloud, line.project_id));
    held.old_quantity = held.old_quantity.plus(line.quantity);
    held.old_amount = held.old_amount.plus(line.amount);
  }
  for (const line of diff.new) {
    const held = cell(line, diff.newNote(resource.cloud, line.project_id));
    held.unit_price = line.unit_price;
    held.new_quantity = held.new_quantity.plus(line.quantity);
    held.new_amount = held.new_amount.plus(line.amount);
  }
  const deltas: LineDelta[] = [];
  for (const held of cells.values()) {
    held.delta = held.new_amount.minus(held.old_amount);
    if (!held.delta.eq(0)) deltas.push(held);
  }
  return deltas.sort(
    (a, b) =>
      compare(a.note_cloud, b.note_cloud) ||
      compare(a.note_project_id, b.note_project_id) ||
      compare(a.project_id, b.project_id) ||
      compare(a.dimension, b.dimension),
  );
}
