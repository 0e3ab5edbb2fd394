import type { Sql } from "postgres";
import { groupBy } from "../../foundation/collections/group-by.ts";
import type { StoredRelatedDelta } from "./engine-schema.ts";
import { exportKey, lineItems } from "./line-items.ts";
import type { RunRecord } from "./run-lookup.ts";

interface DeltaRow {
  note_cloud: string;
  note_project_id: string;
  cloud: string;
  platform: string;
  resource_type: string;
  resource_id: string;
  project_id: string;
  dimension: string;
  old_amount: string;
  new_amount: string;
  delta: string;
}

const deltaItems = (rows: readonly DeltaRow[]) =>
  lineItems(
    rows,
    (r) => ({ old: r.old_amount, new: r.new_amount, delta: r.delta }),
    (r) => r.delta,
  );

/**
 * A correction's credit notes as documents (docs/engine.md#credit-notes, every member in its order):
 * `project_id`, `corrects_run_id`, `line_items` (the note's own resources, each dimension's `old`,
 * `new` and `delta`), `base_delta`, `adjustments`, `net_delta`, `kickback_delta`, `related_costs`
 * (attributed tenants' line items, on the cluster manager's note only) and `total`; then ours (decision
 * 427): `cloud`, `currency`, and `error` when the restated statement failed.
 */
export async function creditNoteDocuments(
  sql: Sql,
  run: RunRecord,
): Promise<{ key: string; doc: Record<string, unknown> }[]> {
  const notes = await sql<
    {
      cloud: string;
      project_id: string;
      currency: string;
      base_delta: string;
      net_delta: string;
      kickback_delta: string;
      total: string;
      related: StoredRelatedDelta[] | string;
      error: string | null;
    }[]
  >`select cloud, project_id, currency, base_delta::text, net_delta::text, kickback_delta::text, total::text,
      related, error from credit_notes where run_id = ${run.id} order by cloud, project_id`;
  const adjustments = await sql<
    {
      cloud: string;
      project_id: string;
      type: string;
      relation_type: string;
      relation_target: string;
      relation_id: string;
      scope: string;
      rate: string;
      old_amount: string;
      new_amount: string;
      delta: string;
    }[]
  >`select cloud, project_id, type, relation_type, relation_target, relation_id::text, scope,
      to_char(rate, 'FM0.000000') as rate, old_amount::text, new_amount::text, delta::text
    from adjustment_deltas where run_id = ${run.id} order by cloud, project_id, seq`;
  const deltas = await sql<DeltaRow[]>`select note_cloud, note_project_id, cloud, platform, resource_type,
      resource_id, project_id, dimension, old_amount::text, new_amount::text, delta::text
    from line_deltas where run_id = ${run.id}
    order by note_cloud, note_project_id, cloud, project_id, resource_type, resource_id, dimension`;
  const rowsOf = groupBy(
    deltas,
    (d) => `${exportKey(d.note_cloud, d.note_project_id)}\u0000${exportKey(d.cloud, d.project_id)}`,
  );
  return notes.map((n) => {
    const key = exportKey(n.cloud, n.project_id);
    const related =
      typeof n.related === "string" ? (JSON.parse(n.related) as StoredRelatedDelta[]) : n.related;
    const doc: Record<string, unknown> = {
      project_id: n.project_id,
      corrects_run_id: run.corrects_run_id,
      line_items: deltaItems(rowsOf.get(`${key}\u0000${key}`) ?? []),
      base_delta: n.base_delta,
      adjustments: adjustments
        .filter((a) => a.cloud === n.cloud && a.project_id === n.project_id)
        .map((a) => ({
          type: a.type,
          relation_type: a.relation_type,
          relation_target: a.relation_target,
          relation_id: a.relation_id,
          scope: a.scope,
          rate: a.rate,
          old: a.old_amount,
          new: a.new_amount,
          delta: a.delta,
        })),
      net_delta: n.net_delta,
      kickback_delta: n.kickback_delta,
      related_costs: related.map((r) => ({
        relation_type: r.relation_type,
        project_id: r.project_id,
        line_items: deltaItems(rowsOf.get(`${key}\u0000${exportKey(r.cloud, r.project_id)}`) ?? []),
        total: r.total,
      })),
      total: n.total,
      cloud: n.cloud,
      currency: n.currency,
    };
    if (n.error !== null) doc.error = n.error;
    return { key, doc };
  });
}
