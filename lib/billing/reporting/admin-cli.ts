import type { DestinationStream } from "pino";
import { type Command, command, commandGroup } from "../../foundation/cli/command.ts";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { postgresUrl, secret } from "../../foundation/config/fields.ts";
import { statusOf } from "../../foundation/errors/error-code.ts";
import { SvcError } from "../../foundation/errors/svc-error.ts";
import { createLogger } from "../../foundation/log/logger.ts";
import { describeDatabaseFailure } from "../../foundation/postgres/database-failure.ts";
import { canonicalInstant } from "../../foundation/time/instant.ts";
import {
  issueApiToken,
  issueIngestCredential,
  listApiTokens,
  listIngestCredentials,
  revokeCredential,
} from "./auth/credential-store.ts";
import { roles } from "./auth/roles.ts";
import { type Cloud, loadClouds } from "./clouds/clouds-file.ts";
import { registeredAdapters } from "./clouds/registered-adapters.ts";
import { openDatabase, type ReportingDb } from "./database.ts";
import { EventPartitions } from "./event-partitions.ts";
import { migrateReporting } from "./migrate.ts";
import { reportingSettings } from "./server/reporting-settings.ts";
import { runSync, SyncRunFailedError } from "./sync/sync-run.ts";

const actor = "reporting-admin";

/** What the admin CLI writes; the entry script passes stdout, tests pass a collector. */
export interface AdminOutput {
  print(line: string): void;
  /** The working directory clouds.yaml is searched from (`sync`): the process's own. */
  cwd: string;
  /** Where `sync` logs (JSON lines): stderr, since stdout carries the SyncResult. */
  log?: DestinationStream;
}

/** The only setting: the admin CLI works on the database directly. */
const settings = { dbUrl: secret("SVC_REPORTING_DB_URL", { required: true }, { url: postgresUrl }) };

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

/** `sync` reads what the server reads for a run, from the same variables. */
const syncSettings = {
  dbUrl: settings.dbUrl,
  logLevel: reportingSettings.logLevel,
  cloudsConfig: reportingSettings.cloudsConfig,
  syncAllowAt: reportingSettings.syncAllowAt,
  syncBudgetS: reportingSettings.syncBudgetS,
  syncSettleS: reportingSettings.syncSettleS,
  requireSizeSchema: reportingSettings.requireSizeSchema,
};

function readAt(text: string): string {
  try {
    return canonicalInstant(text);
  } catch {
    throw new RangeError(`--at takes an RFC 3339 instant with an offset, got ${JSON.stringify(text)}`);
  }
}

/**
 * The admin CLI's commands. It works on the database directly and needs only `SVC_REPORTING_DB_URL`.
 * Output is one JSON document per line so scripts can read it; an issued secret is printed once, in the
 * issue command's output, and nowhere else.
 */
// size: split pending (issue 27, helper commands)
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

  const sync = command({
    name: "sync",
    description:
      "Reconcile a cloud now, as POST /internal/sync/{cloud} does (same lock, same sync_runs rows); prints the SyncResult",
    args: {
      cloud: {
        type: "string",
        required: true,
        description: "the cloud, as SVC_REPORTING_CLOUDS_CONFIG names it",
      },
      at: {
        type: "string",
        description: "the run instant, RFC 3339 (only with SVC_REPORTING_SYNC_ALLOW_AT)",
      },
    },
    settings: syncSettings,
    checkSettings: (config, flags) =>
      flags.at !== undefined && !config.syncAllowAt
        ? [
            {
              variable: "SVC_REPORTING_SYNC_ALLOW_AT",
              message: "--at needs SVC_REPORTING_SYNC_ALLOW_AT=true",
            },
          ]
        : [],
    parse: (flags) => ({ at: flags.at === undefined ? undefined : readAt(flags.at) }),
    run: async ({ flags, options, config, env }) => {
      let clouds: Map<string, Cloud>;
      try {
        clouds = loadClouds(config.cloudsConfig, registeredAdapters({ env, cwd: out.cwd }));
      } catch (error) {
        throw new UsageError(error instanceof Error ? error.message : "the clouds file cannot be used");
      }
      const cloud = clouds.get(flags.cloud);
      if (cloud === undefined) {
        throw new UsageError(
          config.cloudsConfig === undefined
            ? "SVC_REPORTING_CLOUDS_CONFIG is unset: there is no cloud to sync"
            : `the clouds file names no cloud ${flags.cloud}`,
        );
      }
      const database = openDatabase(config.dbUrl.reveal(), { max: 2 });
      try {
        const result = await runSync(
          {
            sql: database.sql,
            partitions: new EventPartitions(database.sql),
            requireSizeSchema: config.requireSizeSchema,
            logger: createLogger({
              service: "svc-reporting-admin",
              level: config.logLevel,
              ...(out.log === undefined ? {} : { destination: out.log }),
            }),
          },
          {
            cloud,
            ...(options.at === undefined ? {} : { at: options.at }),
            settleMs: config.syncSettleS * 1000,
            budgetMs: config.syncBudgetS * 1000,
          },
        );
        out.print(json(result));
      } catch (error) {
        // A failed run is no mistake of the caller: its reason, exit 1, for cron to report.
        if (error instanceof SyncRunFailedError) throw new Error(error.message, { cause: error });
        if (error instanceof SvcError && statusOf(error.code) < 500)
          throw new UsageError(error.message, { cause: error });
        throw new Error(describeDatabaseFailure(error), { cause: error });
      } finally {
        await database.close();
      }
    },
  });

  return commandGroup({
    name: "reporting-admin",
    description: "Administer the reporting database",
    subCommands: { migrate, token, ingest, sync },
  });
}
