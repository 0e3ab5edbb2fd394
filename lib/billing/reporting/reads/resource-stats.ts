import type { Sql } from "postgres";
import { ResultTooLargeError } from "../../../foundation/errors/svc-error.ts";
import { inScope } from "./project-scope.ts";
import { type ResourceStatus, statusCondition } from "./resource-list.ts";
import { maxStatsItems, rollUp } from "./stats-grouping.ts";

export const resourceDimensions = ["cloud", "resource_type", "state", "platform", "project_id"] as const;
type ResourceDimension = (typeof resourceDimensions)[number];

/**
 * Counts of the projection per combination of the grouped dimensions (no zero items), ordered by
 * (cloud, resource_type, state, platform, project_id), an ungrouped dimension as the empty string.
 * Counted over all five dimensions and rolled up, so whether the answer fits does not depend on the
 * grouping asked for.
 */
export async function resourceStats(
  sql: Sql,
  options: { groupBy: readonly ResourceDimension[]; status: ResourceStatus; scope: readonly string[] | null },
) {
  const rows = await sql<(Record<ResourceDimension, string | null> & { count: number })[]>`
    select cloud, resource_type, state, platform, project_id, count(*)::int as count
    from current_resources
    where true ${statusCondition(sql, options.status)} ${inScope(sql, options.scope, sql`cloud, project_id`)}
    group by cloud, resource_type, state, platform, project_id
    limit ${maxStatsItems + 1}`;
  if (rows.length > maxStatsItems) {
    throw new ResultTooLargeError(
      `the counts hold more than ${maxStatsItems} combinations of the five dimensions; narrow them with status or a project token`,
    );
  }
  return { items: rollUp(rows, options.groupBy, resourceDimensions) };
}
