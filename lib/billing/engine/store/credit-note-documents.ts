import { asc, eq } from "drizzle-orm";
import type { Sql } from "postgres";
import { groupBy } from "../../../foundation/collections/group-by.ts";
import { engineDb } from "./engine-db.ts";
import { adjustmentDeltas, creditNotes, lineDeltas } from "./engine-schema.ts";
import { exportKey, lineItems } from "./line-items.ts";
import type { RunRecord } from "./runs.ts";

type LineDeltaRow = typeof lineDeltas.$inferSelect;

const deltaItems = (rows: readonly LineDeltaRow[]) =>
  lineItems(
    rows,
    (r) => ({ old: r.oldAmount, new: r.newAmount, delta: r.delta }),
    (r) => r.delta,
  );

/**
 * A correction's credit notes as documents (docs/engine.md#credit-notes, every member in its order):
 * `project_id`, `corrects_run_id`, `line_items` (the note's own resources, each dimension's `old`,
 * `new` and `delta`), `base_delta`, `adjustments`, `net_delta`, `kickback_delta`, `related_costs`
 * (attributed tenants' line items, on the cluster manager's note only) and `total`; then ours (decision
 * 427): `cloud`, `currency`, `plan` when a plan line moved (decision 467), and `error` when the restated
 * statement failed.
 */
export async function creditNoteDocuments(
  sql: Sql,
  run: RunRecord,
): Promise<{ key: string; doc: Record<string, unknown> }[]> {
  const db = engineDb(sql);
  const notes = await db
    .select()
    .from(creditNotes)
    .where(eq(creditNotes.runId, run.id))
    .orderBy(asc(creditNotes.cloud), asc(creditNotes.projectId));
  const adjustments = await db
    .select()
    .from(adjustmentDeltas)
    .where(eq(adjustmentDeltas.runId, run.id))
    .orderBy(asc(adjustmentDeltas.cloud), asc(adjustmentDeltas.projectId), asc(adjustmentDeltas.seq));
  const deltas = await db
    .select()
    .from(lineDeltas)
    .where(eq(lineDeltas.runId, run.id))
    .orderBy(
      asc(lineDeltas.noteCloud),
      asc(lineDeltas.noteProjectId),
      asc(lineDeltas.cloud),
      asc(lineDeltas.projectId),
      asc(lineDeltas.resourceType),
      asc(lineDeltas.resourceId),
      asc(lineDeltas.dimension),
    );
  const rowsOf = groupBy(
    deltas,
    (d) => `${exportKey(d.noteCloud, d.noteProjectId)}\u0000${exportKey(d.cloud, d.projectId)}`,
  );
  return notes.map((n) => {
    const key = exportKey(n.cloud, n.projectId);
    const doc: Record<string, unknown> = {
      project_id: n.projectId,
      corrects_run_id: run.correctsRunId,
      line_items: deltaItems(rowsOf.get(`${key}\u0000${key}`) ?? []),
      base_delta: n.baseDelta,
      adjustments: adjustments
        .filter((a) => a.cloud === n.cloud && a.projectId === n.projectId)
        .map((a) => ({
          type: a.type,
          relation_type: a.relationType,
          relation_target: a.relationTarget,
          relation_id: a.relationId,
          scope: a.scope,
          rate: a.rate,
          old: a.oldAmount,
          new: a.newAmount,
          delta: a.delta,
        })),
      net_delta: n.netDelta,
      kickback_delta: n.kickbackDelta,
      related_costs: n.related.map((r) => ({
        relation_type: r.relation_type,
        project_id: r.project_id,
        line_items: deltaItems(rowsOf.get(`${key}\u0000${exportKey(r.cloud, r.project_id)}`) ?? []),
        total: r.total,
      })),
      total: n.total,
      cloud: n.cloud,
      currency: n.currency,
    };
    if (n.plan !== null) doc.plan = n.plan;
    if (n.error !== null) doc.error = n.error;
    return { key, doc };
  });
}
