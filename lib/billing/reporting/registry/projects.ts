import type { Sql, TransactionSql } from "postgres";
import { ConflictError, UnprocessableError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { reservedPlatformNames } from "../../events/event.ts";
import { pgInstant } from "../database.ts";
import { indexKeyMaxBytes } from "../ingest/index-limits.ts";
import { equalFilters } from "../reads/equal-filters.ts";
import { decodeCursor, pageOf } from "../reads/page-cursor.ts";

/** A registry row as the API serves it. */
export interface Project {
  id: string;
  platform: string;
  cloud: string;
  external_id: string;
  name: string | null;
  metadata: JsonObject;
  created_at: string;
}

interface NewProject {
  platform: string;
  cloud: string;
  external_id: string;
  name?: string | null;
  metadata?: JsonObject;
}

/** A row as read, `created_at` still in PostgreSQL's text form. */
type ProjectRow = Project;

const columns = (sql: Sql | TransactionSql) =>
  sql`id::text, platform, cloud, external_id, name, metadata, created_at::text`;

function projectOf(row: ProjectRow): Project {
  return { ...row, created_at: pgInstant(row.created_at) };
}

/**
 * The virtual-project rule (docs/reporting-api.md#projects-and-relations): a `meta` or `partner` platform carries
 * the same literal as cloud, and no other platform uses those clouds. Answered 422 before any write.
 */
function virtualProjectErrors(p: NewProject) {
  const virtual = reservedPlatformNames.includes(p.platform);
  if (virtual && p.cloud !== p.platform) {
    return [{ loc: "body.cloud", msg: `a ${p.platform} project must have cloud ${p.platform}` }];
  }
  if (!virtual && reservedPlatformNames.includes(p.cloud)) {
    return [{ loc: "body.cloud", msg: `only a ${p.cloud} project may use cloud ${p.cloud}` }];
  }
  return [];
}

/**
 * Registers a project. The pair (cloud, external_id) already held is 409 and nothing is replaced; the
 * insert and the check are one statement, so two registrations of one pair at once store one row.
 * The audit row names the token that registered it.
 */
export async function createProject(sql: Sql, input: NewProject, actor: string): Promise<Project> {
  const virtual = virtualProjectErrors(input);
  if (virtual.length > 0) throw new UnprocessableError("virtual projects keep their own cloud", virtual);
  if (Buffer.byteLength(input.cloud) + Buffer.byteLength(input.external_id) > indexKeyMaxBytes) {
    throw new ValidationError("the project key is too long to index", [
      {
        loc: "body.external_id",
        msg: `cloud and external_id together must fit in ${indexKeyMaxBytes} bytes of UTF-8`,
      },
    ]);
  }
  return sql.begin(async (tx) => {
    const [row] = await tx<ProjectRow[]>`
      insert into projects (platform, cloud, external_id, name, metadata)
      values (${input.platform}, ${input.cloud}, ${input.external_id}, ${input.name ?? null},
        ${JSON.stringify(input.metadata ?? {})}::jsonb)
      on conflict (cloud, external_id) do nothing
      returning ${columns(tx)}`;
    if (row === undefined) {
      throw new ConflictError(
        `a project ${input.external_id} is already registered under cloud ${input.cloud}`,
      );
    }
    await tx`insert into audit_log (actor, action, target, detail)
      values (${actor}, 'projects.create', ${row.id}, ${JSON.stringify({ cloud: row.cloud, external_id: row.external_id })}::jsonb)`;
    return projectOf(row);
  });
}

export async function findProject(sql: Sql, id: string): Promise<Project | null> {
  const [row] = await sql<ProjectRow[]>`select ${columns(sql)} from projects where id = ${id}`;
  return row === undefined ? null : projectOf(row);
}

interface ProjectFilter {
  platform?: string | undefined;
  cloud?: string | undefined;
  external_id?: string | undefined;
  /** Registry ids the caller may see; null is every project. */
  scope: readonly string[] | null;
  limit: number;
  cursor?: string | undefined;
}

/** A page of the registry in (cloud, external_id) order. */
export async function listProjects(sql: Sql, filter: ProjectFilter) {
  const after = filter.cursor === undefined ? null : decodeCursor(filter.cursor, "ss");
  const rows = await sql<ProjectRow[]>`
    select ${columns(sql)} from projects
    where true
      ${equalFilters(sql, filter, ["platform", "cloud", "external_id"])}
      ${filter.scope === null ? sql`` : sql`and id = any(${filter.scope}::uuid[])`}
      ${after === null ? sql`` : sql`and (cloud, external_id) > (${after[0] ?? ""}, ${after[1] ?? ""})`}
    order by cloud, external_id
    limit ${filter.limit + 1}`;
  return pageOf(rows, filter.limit, projectOf, (r) => [r.cloud, r.external_id]);
}
