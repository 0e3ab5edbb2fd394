import { defineCommand } from "citty";
import { DrizzleQueryError } from "drizzle-orm/errors";
import postgres from "postgres";
import { ConfigError } from "../config/config-error.ts";
import type { Env } from "../config/fields.ts";
import { secret } from "../config/fields.ts";
import { readConfig } from "../config/read-config.ts";
import { SvcError } from "../errors/svc-error.ts";
import {
  issueApiToken,
  issueIngestCredential,
  listApiTokens,
  listIngestCredentials,
  revokeCredential,
} from "./auth/credential-store.ts";
import { roles } from "./auth/roles.ts";
import { openDatabase, type ReportingDb } from "./database.ts";
import { migrateReporting } from "./migrate.ts";

const actor = "reporting-admin";

/** What the admin CLI writes; the entry script passes stdout, tests pass a collector. */
export interface AdminOutput {
  print(line: string): void;
}

function databaseUrl(env: Env): string {
  return readConfig(env, { url: secret("SVC_REPORTING_DB_URL", { required: true }) }).url.reveal();
}

async function withDb<T>(env: Env, work: (db: ReportingDb) => Promise<T>): Promise<T> {
  const database = openDatabase(databaseUrl(env), { max: 1 });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

const json = (value: unknown) => JSON.stringify(value);

/**
 * The admin CLI's commands. It works on the database directly and needs only `SVC_REPORTING_DB_URL`.
 * Output is one JSON document per line so scripts can read it; an issued secret is printed once, in the
 * issue command's output, and nowhere else.
 */
export function adminCommand(env: Env, out: AdminOutput) {
  const migrateCommand = defineCommand({
    meta: {
      name: "migrate",
      description: "Bring the reporting schema up to date (idempotent, safe to run twice at once)",
    },
    async run() {
      const result = await migrateReporting(databaseUrl(env));
      out.print(json({ applied: result.applied, partitions: result.partitions }));
    },
  });

  const tokenCommand = defineCommand({
    meta: { name: "token", description: "API tokens (scheme apiToken)" },
    subCommands: {
      issue: defineCommand({
        meta: { name: "issue", description: "Issue an API token; its secret is shown once" },
        args: {
          role: { type: "string", required: true, description: `one of ${roles.join(", ")} (lowest first)` },
          projects: {
            type: "string",
            description: "comma-separated project registry ids (the token's scope)",
          },
          label: { type: "string", description: "a note saying who holds it" },
        },
        async run({ args }) {
          const projectIds = args.projects
            ? args.projects
                .split(",")
                .map((p) => p.trim())
                .filter((p) => p !== "")
            : [];
          const issued = await withDb(env, (db) =>
            issueApiToken(db, { role: args.role, projectIds, label: args.label ?? "", actor }),
          );
          out.print(json(issued));
        },
      }),
      list: defineCommand({
        meta: { name: "list", description: "List API tokens (never their secrets)" },
        async run() {
          for (const t of await withDb(env, listApiTokens)) out.print(json(t));
        },
      }),
      revoke: defineCommand({
        meta: { name: "revoke", description: "Revoke an API token by id" },
        args: { id: { type: "positional", required: true, description: "token id" } },
        async run({ args }) {
          await withDb(env, (db) => revokeCredential(db, "api", args.id, actor));
          out.print(json({ revoked: args.id }));
        },
      }),
    },
  });

  const ingestCommand = defineCommand({
    meta: {
      name: "ingest",
      description: "Ingest credentials (scheme ingestToken), one per (platform, cloud)",
    },
    subCommands: {
      issue: defineCommand({
        meta: { name: "issue", description: "Issue an ingest credential; its secret is shown once" },
        args: {
          platform: { type: "string", required: true, description: "platform the credential reports for" },
          cloud: { type: "string", required: true, description: "cloud the credential reports for" },
          label: { type: "string", description: "a note saying who holds it" },
        },
        async run({ args }) {
          const issued = await withDb(env, (db) =>
            issueIngestCredential(db, {
              platform: args.platform,
              cloud: args.cloud,
              label: args.label ?? "",
              actor,
            }),
          );
          out.print(json(issued));
        },
      }),
      list: defineCommand({
        meta: { name: "list", description: "List ingest credentials (never their secrets)" },
        async run() {
          for (const c of await withDb(env, listIngestCredentials)) out.print(json(c));
        },
      }),
      revoke: defineCommand({
        meta: { name: "revoke", description: "Revoke an ingest credential by id" },
        args: { id: { type: "positional", required: true, description: "credential id" } },
        async run({ args }) {
          await withDb(env, (db) => revokeCredential(db, "ingest", args.id, actor));
          out.print(json({ revoked: args.id }));
        },
      }),
    },
  });

  return defineCommand({
    meta: { name: "reporting-admin", description: "Administer the reporting database" },
    subCommands: { migrate: migrateCommand, token: tokenCommand, ingest: ingestCommand },
  });
}

/**
 * One line for a failed command. A caller's mistake (argument, configuration, unknown id) says what is
 * wrong; a database failure gives its code and PostgreSQL's own message, which never holds the URL.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof SvcError || error instanceof ConfigError) return error.message;
  if (!(error instanceof Error)) return "failed";
  if (error.name === "CLIError") return error.message;
  // drizzle wraps driver errors with the query text; the driver's error is the one to describe.
  if (error instanceof DrizzleQueryError && error.cause instanceof Error) return describeFailure(error.cause);
  const code = "code" in error ? String(error.code) : undefined;
  if (error instanceof postgres.PostgresError) return `the database refused: ${error.message} (${code})`;
  if (code !== undefined) return `cannot reach the database (${code})`;
  return `failed: ${error.name}`;
}
