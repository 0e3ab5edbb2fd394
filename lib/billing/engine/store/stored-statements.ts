import { asc, eq } from "drizzle-orm";
import type { Sql } from "postgres";
import { groupBy } from "../../../foundation/collections/group-by.ts";
import { decimal } from "../../../foundation/money/decimal.ts";
import type { AdjustmentFigures, StatementFigures } from "../../corrections/credit-note.ts";
import { projectKey } from "../../statements/registry.ts";
import { engineDb } from "./engine-db.ts";
import { adjustmentRecords, statements } from "./engine-schema.ts";

/**
 * A run's stored statements with their adjustment lines in application order, as a correction
 * compares them (amounts back to decimals).
 */
export async function storedStatements(sql: Sql, runId: string): Promise<StatementFigures[]> {
  const db = engineDb(sql);
  const rows = await db
    .select()
    .from(statements)
    .where(eq(statements.runId, runId))
    .orderBy(asc(statements.cloud), asc(statements.projectId));
  const lines = await db
    .select()
    .from(adjustmentRecords)
    .where(eq(adjustmentRecords.runId, runId))
    .orderBy(asc(adjustmentRecords.cloud), asc(adjustmentRecords.projectId), asc(adjustmentRecords.seq));
  const linesOf = groupBy(lines, (l) => projectKey(l.cloud, l.projectId));
  const figures = (l: (typeof lines)[number]): AdjustmentFigures => ({
    type: l.type,
    relation_type: l.relationType,
    relation_target: l.relationTarget,
    relation_target_cloud: l.relationTargetCloud,
    relation_id: l.relationId,
    scope: l.scope,
    description: l.description,
    rate: decimal(l.rate),
    base: decimal(l.base),
    amount: decimal(l.amount),
  });
  return rows.map((s) => ({
    cloud: s.cloud,
    project_id: s.projectId,
    registry_id: s.registryId,
    base_cost: decimal(s.baseCost),
    net_cost: decimal(s.netCost),
    kickback_total: decimal(s.kickbackTotal),
    total: decimal(s.total),
    related: s.related.map((r) => ({ ...r, total: decimal(r.total) })),
    error: s.error,
    plan:
      s.plan === null
        ? null
        : {
            name: s.plan.name,
            tier_lines: s.plan.tier_lines.map((l) => ({ dimension: l.dimension, amount: decimal(l.amount) })),
            minimums: s.plan.minimums.map((m) => ({ scope: m.scope, amount: decimal(m.amount) })),
          },
    adjustments: (linesOf.get(projectKey(s.cloud, s.projectId)) ?? []).map(figures),
  }));
}
