import { asc, eq } from "drizzle-orm";
import type { Sql } from "postgres";
import { groupBy } from "../../../foundation/collections/group-by.ts";
import { engineDb } from "./engine-db.ts";
import { adjustmentRecords, ratedLines, statements } from "./engine-schema.ts";
import { exportKey, lineItems } from "./line-items.ts";
import type { RunRecord } from "./runs.ts";

type RatedLine = typeof ratedLines.$inferSelect;

const ratedItems = (rows: readonly RatedLine[]) =>
  lineItems(
    rows,
    (r) => ({ quantity: r.quantity, unit_price: r.unitPrice, amount: r.amount }),
    (r) => r.amount,
  );

/**
 * The statements of a run as documents (docs/engine.md#statements, members in their
 * order): `cloud`, `project_id`, `total`, and when an adjustment reached the statement `base_cost`,
 * `net_cost`, `kickback_total` and `adjustments`; then ours: `currency`, `line_items`,
 * `related_costs` (attributed tenants, on the cluster manager's statement only), `plan` when a plan
 * put lines on it (decision 467) and `error` on a statement that failed.
 */
export async function statementDocuments(
  sql: Sql,
  run: RunRecord,
): Promise<{ key: string; doc: Record<string, unknown> }[]> {
  const db = engineDb(sql);
  const rows = await db
    .select()
    .from(statements)
    .where(eq(statements.runId, run.id))
    .orderBy(asc(statements.cloud), asc(statements.projectId));
  const adjustments = await db
    .select()
    .from(adjustmentRecords)
    .where(eq(adjustmentRecords.runId, run.id))
    .orderBy(asc(adjustmentRecords.cloud), asc(adjustmentRecords.projectId), asc(adjustmentRecords.seq));
  const lines = await db
    .select()
    .from(ratedLines)
    .where(eq(ratedLines.runId, run.id))
    .orderBy(
      asc(ratedLines.cloud),
      asc(ratedLines.projectId),
      asc(ratedLines.resourceType),
      asc(ratedLines.resourceId),
      asc(ratedLines.dimension),
    );
  const linesOf = groupBy(lines, (l) => exportKey(l.cloud, l.projectId));
  return rows.map((s) => {
    const key = exportKey(s.cloud, s.projectId);
    const doc: Record<string, unknown> = { cloud: s.cloud, project_id: s.projectId, total: s.total };
    if (s.adjusted) {
      doc.base_cost = s.baseCost;
      doc.net_cost = s.netCost;
      doc.kickback_total = s.kickbackTotal;
      doc.adjustments = adjustments
        .filter((a) => a.cloud === s.cloud && a.projectId === s.projectId)
        .map((a) => ({
          type: a.type,
          relation_type: a.relationType,
          relation_target: a.relationTarget,
          relation_id: a.relationId,
          scope: a.scope,
          ...(a.description === "" ? {} : { description: a.description }),
          rate: a.rate,
          base: a.base,
          amount: a.amount,
        }));
    }
    doc.currency = s.currency;
    doc.line_items = ratedItems(linesOf.get(key) ?? []);
    doc.related_costs = s.related.map((r) => ({
      relation_type: r.relation_type,
      project_id: r.project_id,
      line_items: ratedItems(linesOf.get(exportKey(r.cloud, r.project_id)) ?? []),
      total: r.total,
    }));
    if (s.plan !== null) doc.plan = s.plan;
    if (s.error !== null) doc.error = s.error;
    return { key, doc };
  });
}
