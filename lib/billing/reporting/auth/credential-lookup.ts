import type { Sql } from "postgres";
import type { Role } from "./roles.ts";
import { hashSecret } from "./secret-token.ts";

export interface ApiPrincipal {
  scheme: "api";
  id: string;
  role: Role;
  /** Registry ids; null is every project. */
  projectIds: string[] | null;
}

export interface IngestPrincipal {
  scheme: "ingest";
  id: string;
  platform: string;
  cloud: string;
}

/** The active API token a bearer secret names, or null. Each scheme looks only in its own table. */
export async function findApiToken(sql: Sql, secret: string): Promise<ApiPrincipal | null> {
  const [row] = await sql<{ id: string; role: Role; project_ids: string[] | null }[]>`
    select id, role, project_ids from api_tokens where secret_hash = ${hashSecret(secret)} and revoked_at is null`;
  return row ? { scheme: "api", id: row.id, role: row.role, projectIds: row.project_ids } : null;
}

export async function findIngestCredential(sql: Sql, secret: string): Promise<IngestPrincipal | null> {
  const [row] = await sql<{ id: string; platform: string; cloud: string }[]>`
    select id, platform, cloud from ingest_credentials
    where secret_hash = ${hashSecret(secret)} and revoked_at is null`;
  return row ? { scheme: "ingest", id: row.id, platform: row.platform, cloud: row.cloud } : null;
}
