import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { NotFoundError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import { pgInstant, type ReportingDb } from "../database.ts";
import { apiTokens, auditLog, ingestCredentials, projects } from "../schema.ts";
import { isRole, type Role, roles } from "./roles.ts";
import { hashSecret, newSecret } from "./secret-token.ts";

interface ApiTokenInfo {
  id: string;
  role: Role;
  /** Registry ids of the projects the token may see; null is every project. */
  project_ids: string[] | null;
  label: string;
  created_at: string;
  revoked_at: string | null;
}

interface IngestCredentialInfo {
  id: string;
  platform: string;
  cloud: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
}

/** An issued credential with its secret: the only time the secret exists outside the caller's hands. */
type Issued<T> = T & { secret: string };

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function tokenInfo(row: typeof apiTokens.$inferSelect): ApiTokenInfo {
  return {
    id: row.id,
    role: row.role as Role,
    project_ids: row.projectIds,
    label: row.label,
    created_at: pgInstant(row.createdAt),
    revoked_at: row.revokedAt === null ? null : pgInstant(row.revokedAt),
  };
}

function credentialInfo(row: typeof ingestCredentials.$inferSelect): IngestCredentialInfo {
  return {
    id: row.id,
    platform: row.platform,
    cloud: row.cloud,
    label: row.label,
    created_at: pgInstant(row.createdAt),
    revoked_at: row.revokedAt === null ? null : pgInstant(row.revokedAt),
  };
}

/**
 * Issues an API token. A project scope names registry ids that must exist; an admin token is never
 * scoped, because what only an admin may do (rejected events, registration, relations) spans projects.
 */
export async function issueApiToken(
  db: ReportingDb,
  input: { role: string; projectIds?: string[]; label?: string; actor: string },
): Promise<Issued<ApiTokenInfo>> {
  if (!isRole(input.role)) throw new ValidationError(`role must be one of ${roles.join(", ")}`);
  const projectIds = input.projectIds && input.projectIds.length > 0 ? [...new Set(input.projectIds)] : null;
  if (projectIds && input.role === "admin")
    throw new ValidationError("an admin token takes no project scope");
  if (projectIds) {
    const malformed = projectIds.filter((id) => !uuidPattern.test(id));
    if (malformed.length > 0)
      throw new ValidationError("a project scope names projects by registry id (UUID)");
    const found = await db.select({ id: projects.id }).from(projects).where(inArray(projects.id, projectIds));
    if (found.length !== projectIds.length) {
      const known = new Set(found.map((f) => f.id.toLowerCase()));
      const unknown = projectIds.filter((id) => !known.has(id.toLowerCase()));
      throw new NotFoundError(`no registered project with id ${unknown.join(", ")}`);
    }
  }
  const secret = newSecret("api");
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(apiTokens)
      .values({ role: input.role, projectIds, label: input.label ?? "", secretHash: hashSecret(secret) })
      .returning();
    if (!row) throw new Error("insert returned no row");
    await tx.insert(auditLog).values({
      actor: input.actor,
      action: "api_tokens.issue",
      target: row.id,
      detail: { role: row.role, project_ids: row.projectIds },
    });
    return { ...tokenInfo(row), secret };
  });
}

export async function listApiTokens(db: ReportingDb): Promise<ApiTokenInfo[]> {
  const rows = await db.select().from(apiTokens).orderBy(asc(apiTokens.createdAt), asc(apiTokens.id));
  return rows.map(tokenInfo);
}

export async function issueIngestCredential(
  db: ReportingDb,
  input: { platform: string; cloud: string; label?: string; actor: string },
): Promise<Issued<IngestCredentialInfo>> {
  for (const [name, value] of [
    ["platform", input.platform],
    ["cloud", input.cloud],
  ] as const) {
    if (value.length === 0 || value.length > 512)
      throw new ValidationError(`${name} must be 1 to 512 characters`);
    if (value === "meta" || value === "partner") {
      throw new ValidationError(`${name} must not be meta or partner: no events are reported for them`);
    }
  }
  const secret = newSecret("ingest");
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(ingestCredentials)
      .values({
        platform: input.platform,
        cloud: input.cloud,
        label: input.label ?? "",
        secretHash: hashSecret(secret),
      })
      .returning();
    if (!row) throw new Error("insert returned no row");
    await tx.insert(auditLog).values({
      actor: input.actor,
      action: "ingest_credentials.issue",
      target: row.id,
      detail: { platform: row.platform, cloud: row.cloud },
    });
    return { ...credentialInfo(row), secret };
  });
}

export async function listIngestCredentials(db: ReportingDb): Promise<IngestCredentialInfo[]> {
  const rows = await db
    .select()
    .from(ingestCredentials)
    .orderBy(asc(ingestCredentials.createdAt), asc(ingestCredentials.id));
  return rows.map(credentialInfo);
}

/** Revokes one credential of either kind by id; revoking twice is refused as not found (nothing active). */
export async function revokeCredential(
  db: ReportingDb,
  kind: "api" | "ingest",
  id: string,
  actor: string,
): Promise<void> {
  if (!uuidPattern.test(id)) throw new ValidationError("a credential id is a UUID");
  const table = kind === "api" ? apiTokens : ingestCredentials;
  await db.transaction(async (tx) => {
    const revoked = await tx
      .update(table)
      .set({ revokedAt: new Date().toISOString() })
      .where(and(eq(table.id, id), isNull(table.revokedAt)))
      .returning({ id: table.id });
    if (revoked.length === 0)
      throw new NotFoundError(`no active ${kind === "api" ? "API token" : "ingest credential"} ${id}`);
    await tx.insert(auditLog).values({
      actor,
      action: kind === "api" ? "api_tokens.revoke" : "ingest_credentials.revoke",
      target: id,
    });
  });
}
