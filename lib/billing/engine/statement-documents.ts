import type { Sql } from "postgres";
import { groupBy } from "../../foundation/collections/group-by.ts";
import type { StoredRelated } from "./engine-schema.ts";
import { exportKey, type LineRow, lineItems } from "./line-items.ts";
import type { RunRecord } from "./run-lookup.ts";

const ratedItems = (rows: readonly LineRow[]) =>
  lineItems(
    rows,
    (r) => ({ quantity: r.quantity, unit_price: r.unit_price, amount: r.amount }),
    (r) => r.amount,
  );

/**
 * The statements of a run as documents (docs/engine.md#statements, members in their
 * order): `cloud`, `project_id`, `total`, and when an adjustment reached the statement `base_cost`,
 * `net_cost`, `kickback_total` and `adjustments`; then ours: `currency`, `line_items`,
 * `related_costs` (attributed tenants, on the cluster manager's statement only) and `error` on a
 * statement that failed.
 */
export async function statementDocuments(
  sql: Sql,
  run: RunRecord,
): Promise<{ key: string; doc: Record<string, unknown> }[]> {
  const statements = await sql<
    {
      cloud: string;
      project_id: string;
      currency: string;
      base_cost: string;
      net_cost: string;
      kickback_total: string;
      total: string;
      adjusted: boolean;
      related: StoredRelated[] | string;
      error: string | null;
    }[]
  >`select cloud, project_id, currency, base_cost::text, net_cost::text, kickback_total::text, total::text, adjusted,
      related, error from statements where run_id = ${run.id} order by cloud, project_id`;
  const adjustments = await sql<
    {
      cloud: string;
      project_id: string;
      type: string;
      relation_type: string;
      relation_target: string;
      relation_id: string;
      scope: string;
      description: string;
      rate: string;
      base: string;
      amount: string;
    }[]
  >`select cloud, project_id, type, relation_type, relation_target, relation_id::text, scope, description,
      to_char(rate, 'FM0.000000') as rate, base::text, amount::text
    from adjustment_records where run_id = ${run.id} order by cloud, project_id, seq`;
  const lines = await sql<
    LineRow[]
  >`select cloud, platform, resource_type, resource_id, project_id, dimension,
      quantity::text, unit_price::text, amount::text from rated_lines where run_id = ${run.id}
    order by cloud, project_id, resource_type, resource_id, dimension`;
  const linesOf = groupBy(lines, (l) => exportKey(l.cloud, l.project_id));
  return statements.map((s) => {
    const key = exportKey(s.cloud, s.project_id);
    const doc: Record<string, unknown> = { cloud: s.cloud, project_id: s.project_id, total: s.total };
    if (s.adjusted) {
      doc.base_cost = s.base_cost;
      doc.net_cost = s.net_cost;
      doc.kickback_total = s.kickback_total;
      doc.adjustments = adjustments
        .filter((a) => a.cloud === s.cloud && a.project_id === s.project_id)
        .map((a) => ({
          type: a.type,
          relation_type: a.relation_type,
          relation_target: a.relation_target,
          relation_id: a.relation_id,
          scope: a.scope,
          ...(a.description === "" ? {} : { description: a.description }),
          rate: a.rate,
          base: a.base,
          amount: a.amount,
        }));
    }
    doc.currency = s.currency;
    doc.line_items = ratedItems(linesOf.get(key) ?? []);
    const related = typeof s.related === "string" ? (JSON.parse(s.related) as StoredRelated[]) : s.related;
    doc.related_costs = related.map((r) => ({
      relation_type: r.relation_type,
      project_id: r.project_id,
      line_items: ratedItems(linesOf.get(exportKey(r.cloud, r.project_id)) ?? []),
      total: r.total,
    }));
    if (s.error !== null) doc.error = s.error;
    return { key, doc };
  });
}
