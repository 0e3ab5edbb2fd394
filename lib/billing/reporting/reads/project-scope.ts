import type { PendingQuery, Row, Sql } from "postgres";
import { ForbiddenError } from "../../../foundation/errors/svc-error.ts";

/**
 * How a project scope (registry ids) reaches rows that carry a cloud and a project id: a row belongs to
 * a scoped token when its (cloud, project_id) pair is the (cloud, external_id) of one of its projects.
 * `columns` names the row's pair, for instance `sql\`cloud, project_id\``.
 */
export function inScope(
  sql: Sql,
  scope: readonly string[] | null,
  columns: PendingQuery<Row[]>,
): PendingQuery<Row[]> {
  if (scope === null) return sql``;
  return sql`and (${columns}) in (select cloud, external_id from projects where id = any(${scope as string[]}::uuid[]))`;
}

/**
 * A `project_id` filter naming a project outside the token's scope is 403 (docs/reporting-api.md#authentication): the caller asked
 * for something it may not read, which must not look like an empty answer. With a `cloud` filter the
 * pair must match; without one, the external id under any of the scope's clouds.
 */
export async function checkProjectFilter(
  sql: Sql,
  scope: readonly string[] | null,
  filter: { cloud?: string | undefined; project_id?: string | undefined },
): Promise<void> {
  if (scope === null || filter.project_id === undefined) return;
  const [row] = await sql<{ found: boolean }[]>`
    select exists (
      select 1 from projects where id = any(${scope as string[]}::uuid[]) and external_id = ${filter.project_id}
      ${filter.cloud === undefined ? sql`` : sql`and cloud = ${filter.cloud}`}
    ) as found`;
  if (!row?.found) throw new ForbiddenError("project_id names a project outside this token's scope");
}
