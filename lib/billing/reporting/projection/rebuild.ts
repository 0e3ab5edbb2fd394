import type { Sql } from "postgres";
import { SvcError } from "../../../foundation/errors/svc-error.ts";
import { refoldResources } from "./project-resources.ts";
import type { ResourceKey } from "./resource-key.ts";

/**
 * RebuildRequest: which resources to refold. Every member is optional and they combine with AND; a
 * resource is selected when at least one of its stored events matches, so `project_id` selects every
 * resource the project ever held (also one transferred away), and an empty filter selects all.
 */
export interface RebuildFilter {
  cloud?: string;
  resource_type?: string;
  resource_id?: string;
  project_id?: string;
}

export interface RebuildResult {
  resources: number;
  events: number;
}

/** More resources than one rebuild call refolds: the caller narrows the filter (413, nothing changed). */
const maxRebuildResources = 200_000;
/** Resources refolded per transaction, so locks are held briefly and ingest interleaves. */
const chunkSize = 500;

export async function rebuildProjection(
  sql: Sql,
  filter: RebuildFilter,
  limits: { maxResources?: number } = {},
): Promise<RebuildResult> {
  const maxResources = limits.maxResources ?? maxRebuildResources;
  const keys = await sql<ResourceKey[]>`
    select distinct cloud, resource_type, resource_id from events
    where (${filter.cloud ?? null}::text is null or cloud = ${filter.cloud ?? null})
      and (${filter.resource_type ?? null}::text is null or resource_type = ${filter.resource_type ?? null})
      and (${filter.resource_id ?? null}::text is null or resource_id = ${filter.resource_id ?? null})
      and (${filter.project_id ?? null}::text is null or project_id = ${filter.project_id ?? null})
    order by cloud, resource_type, resource_id
    limit ${maxResources + 1}`;
  if (keys.length > maxResources) {
    throw new SvcError(
      "payload_too_large",
      `the filter selects more than ${maxResources} resources; narrow it (for example by cloud and resource_type)`,
    );
  }
  let resources = 0;
  let events = 0;
  for (let i = 0; i < keys.length; i += chunkSize) {
    const chunk = keys
      .slice(i, i + chunkSize)
      .map((k) => ({ cloud: k.cloud, resource_type: k.resource_type, resource_id: k.resource_id }));
    const stats = await sql.begin((tx) => refoldResources(tx, chunk));
    resources += stats.resources;
    events += stats.events;
  }
  return { resources, events };
}
