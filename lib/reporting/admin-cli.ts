import { type Command, command, commandGroup } from "../cli/command.ts";
import { UsageError } from "../cli/usage-error.ts";
import { secret } from "../config/fields.ts";
import { statusOf } from "../errors/error-code.ts";
import { SvcError } from "../errors/svc-error.ts";
import { describeDatabaseFailure } from "../postgres/database-failure.ts";
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

/** The only setting: the admin CLI works on the database directly. */
const settings = { dbUrl: secret("SVC_REPORTING_DB_URL", { required: true }) };

async function withDb<T>(url: string, work: (db: ReportingDb) => Promise<T>): Promise<T> {
  const database = openDatabase(url, { max: 1 });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

/**
 * A store's refusal of the caller's input (a bad role, an unknown id) is a UsageError here; any other
 * failure becomes one line that names no secret (`describeDatabaseFailure`).
 */
async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SvcError && statusOf(error.code) < 500)
      throw new UsageError(error.message, { cause: error });
    throw new Error(describeDatabaseFailure(error), { cause: error });
  }
}

const json = (value: unknown) => JSON.stringify(value);

/**
 * The admin CLI's commands. It works on the database directly and needs only `SVC_REPORTING_DB_URL`.
 * Output is one JSON document per line so scripts can read it; an issued secret is printed once, in the
 * issue command's output, and nowhere else.
 */
export function adminProgram(out: AdminOutput): Command {
  const migrate = command({
    name: "migrate",
    description: "Bring the reporting schema up to date (idempotent, safe to run twice at once)",
    settings,
    run: ({ config }) =>
      explained(async () => {
        const result = await migrateReporting(config.dbUrl.reveal());
        out.print(json({ applied: result.applied, partitions: result.partitions }));
      }),
  });

  const list = (what: string, read: (db: ReportingDb) => Promise<unknown[]>) =>
    command({
      name: "list",
      description: `List ${what} (never their secrets)`,
      settings,
      run: ({ config }) =>
        explained(async () => {
          for (const row of await withDb(config.dbUrl.reveal(), read)) out.print(json(row));
        }),
    });

  const revoke = (scheme: "api" | "ingest", what: string) =>
    command({
      name: "revoke",
      description: `Revoke ${what} by id`,
      args: { id: { type: "positional", required: true, description: `${what} id` } },
      settings,
      run: ({ flags, config }) =>
        explained(async () => {
          await withDb(config.dbUrl.reveal(), (db) => revokeCredential(db, scheme, flags.id, actor));
          out.print(json({ revoked: flags.id }));
        }),
    });

  const token = commandGroup({
    name: "token",
    description: "API tokens (scheme apiToken)",
    subCommands: {
      issue: command({
        name: "issue",
        description: "Issue an API token; its secret is shown once",
        args: {
          role: { type: "string", required: true, description: `one of ${roles.join(", ")} (lowest first)` },
          projects: {
            type: "string",
            description: "comma-separated project registry ids (the token's scope)",
          },
          label: { type: "string", description: "a note saying who holds it" },
        },
        settings,
        run: ({ flags, config }) =>
          explained(async () => {
            const projectIds = (flags.projects ?? "")
              .split(",")
              .map((p) => p.trim())
              .filter((p) => p !== "");
            const issued = await withDb(config.dbUrl.reveal(), (db) =>
              issueApiToken(db, { role: flags.role, projectIds, label: flags.label ?? "", actor }),
            );
            out.print(json(issued));
          }),
      }),
      list: list("API tokens", listApiTokens),
      revoke: revoke("api", "an API token"),
    },
  });

  const ingest = commandGroup({
    name: "ingest",
    description: "Ingest credentials (scheme ingestToken), one per (platform, cloud)",
    subCommands: {
      issue: command({
        name: "issue",
        description: "Issue an ingest credential; its secret is shown once",
        args: {
          platform: { type: "string", required: true, description: "platform the credential reports for" },
          cloud: { type: "string", required: true, description: "cloud the credential reports for" },
          label: { type: "string", description: "a note saying who holds it" },
        },
        settings,
        run: ({ flags, config }) =>
          explained(async () => {
            const issued = await withDb(config.dbUrl.reveal(), (db) =>
              issueIngestCredential(db, {
                platform: flags.platform,
                cloud: flags.cloud,
                label: flags.label ?? "",
                actor,
              }),
            );
            out.print(json(issued));
          }),
      }),
      list: list("ingest credentials", listIngestCredentials),
      revoke: revoke("ingest", "an ingest credential"),
    },
  });

  return commandGroup({
    name: "reporting-admin",
    description: "Administer the reporting database",
    subCommands: { migrate, token, ingest },
  });
}
