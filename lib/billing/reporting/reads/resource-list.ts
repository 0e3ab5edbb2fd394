import type { Sql } from "postgres";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { pgInstant } from "../database.ts";
import { equalFilters } from "./equal-filters.ts";
import { decodeCursor, pageOf } from "./page-cursor.ts";
import { checkProjectFilter, inScope } from "./project-scope.ts";

/** `active` (not deleted), `deleted`, or `all`: independent of `state`. */
export type ResourceStatus = "active" | "deleted" | "all";

/** A projection row as the API serves it: what the resource is now. */
export interface Resource {
  cloud: string;
  resource_type: string;
  resource_id: string;
  platform: string;
  project_id: string;
  state: string | null;
  size: JsonObject | null;
  /** Null when the history holds no create (it began with an update). */
  created_at: string | null;
  deleted_at: string | null;
  /** Timestamp of the last event folded into the row. */
  last_event_at: string;
}

type ResourceRow = Resource;

const orNull = (text: string | null) => (text === null ? null : pgInstant(text));

function resourceOf(row: ResourceRow): Resource {
  return {
    ...row,
    created_at: orNull(row.created_at),
    deleted_at: orNull(row.deleted_at),
    last_event_at: pgInstant(row.last_event_at),
  };
}

interface ResourceFilter {
  cloud?: string | undefined;
  platform?: string | undefined;
  project_id?: string | undefined;
  resource_type?: string | undefined;
  state?: string | undefined;
  status: ResourceStatus;
  scope: readonly string[] | null;
  limit: number;
  cursor?: string | undefined;
}

/** The status condition of the projection: a deleted resource keeps its row with `deleted_at` set. */
export function statusCondition(sql: Sql, status: ResourceStatus) {
  if (status === "active") return sql`and deleted_at is null`;
  if (status === "deleted") return sql`and deleted_at is not null`;
  return sql``;
}

/** A page of the projection in (cloud, resource_type, resource_id) order, its primary key. */
export async function listResources(sql: Sql, filter: ResourceFilter) {
  await checkProjectFilter(sql, filter.scope, filter);
  const after = filter.cursor === undefined ? null : decodeCursor(filter.cursor, "sss");
  const rows = await sql<ResourceRow[]>`
    select cloud, resource_type, resource_id, platform, project_id, state, size, created_at::text,
      deleted_at::text, last_event_timestamp::text as last_event_at
    from current_resources
    where true
      ${equalFilters(sql, filter, ["cloud", "platform", "project_id", "resource_type", "state"])}
      ${statusCondition(sql, filter.status)}
      ${inScope(sql, filter.scope, sql`cloud, project_id`)}
      ${after === null ? sql`` : sql`and (cloud, resource_type, resource_id) > (${after[0] ?? ""}, ${after[1] ?? ""}, ${after[2] ?? ""})`}
    order by cloud, resource_type, resource_id
    limit ${filter.limit + 1}`;
  return pageOf(rows, filter.limit, resourceOf, (r) => [r.cloud, r.resource_type, r.resource_id]);
}
