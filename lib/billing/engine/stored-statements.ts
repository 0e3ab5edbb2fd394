import type { Sql } from "postgres";
import { groupBy } from "../../foundation/collections/group-by.ts";
import { decimal } from "../../foundation/money/decimal.ts";
import type { AdjustmentFigures, StatementFigures } from "../corrections/credit-note.ts";
import type { AdjustmentType } from "../statements/adjustment.ts";
import { projectKey } from "../statements/registry.ts";
import type { StoredRelated } from "./engine-schema.ts";

/**
 * A run's stored statements with their adjustment lines in application order, as a correction
 * compares them (amounts back to decimals).
 */
export async function storedStatements(sql: Sql, runId: string): Promise<StatementFigures[]> {
  const statements = await sql<
    {
      cloud: string;
      project_id: string;
      registry_id: string | null;
      base_cost: string;
      net_cost: string;
      kickback_total: string;
      total: string;
      related: StoredRelated[] | string;
      error: string | null;
    }[]
  >`select cloud, project_id, registry_id::text, base_cost::text, net_cost::text, kickback_total::text,
      total::text, related, error from statements where run_id = ${runId} order by cloud, project_id`;
  const lines = await sql<
    {
      cloud: string;
      project_id: string;
      type: AdjustmentType;
      relation_type: string;
      relation_target: string;
      relation_target_cloud: string;
      relation_id: string;
      scope: string;
      description: string;
      rate: string;
      base: string;
      amount: string;
    }[]
  >`select cloud, project_id, type, relation_type, relation_target, relation_target_cloud, relation_id::text,
      scope, description, rate::text, base::text, amount::text
    from adjustment_records where run_id = ${runId} order by cloud, project_id, seq`;
  const linesOf = groupBy(lines, (l) => projectKey(l.cloud, l.project_id));
  const figures = (l: (typeof lines)[number]): AdjustmentFigures => ({
    type: l.type,
    relation_type: l.relation_type,
    relation_target: l.relation_target,
    relation_target_cloud: l.relation_target_cloud,
    relation_id: l.relation_id,
    scope: l.scope,
    description: l.description,
    rate: decimal(l.rate),
    base: decimal(l.base),
    amount: decimal(l.amount),
  });
  return statements.map((s) => {
    const related = typeof s.related === "string" ? (JSON.parse(s.related) as StoredRelated[]) : s.related;
    return {
      cloud: s.cloud,
      project_id: s.project_id,
      registry_id: s.registry_id,
      base_cost: decimal(s.base_cost),
      net_cost: decimal(s.net_cost),
      kickback_total: decimal(s.kickback_total),
      total: decimal(s.total),
      related: related.map((r) => ({ ...r, total: decimal(r.total) })),
      error: s.error,
      adjustments: (linesOf.get(projectKey(s.cloud, s.project_id)) ?? []).map(figures),
    };
  });
}
