import { command } from "../../../foundation/cli/command.ts";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { statusOf } from "../../../foundation/errors/error-code.ts";
import { SvcError } from "../../../foundation/errors/svc-error.ts";
import { createLogger } from "../../../foundation/log/logger.ts";
import { describeDatabaseFailure } from "../../../foundation/postgres/database-failure.ts";
import { canonicalInstant } from "../../../foundation/time/instant.ts";
import { type Cloud, loadClouds } from "../../reporting/clouds/clouds-file.ts";
import { registeredAdapters } from "../../reporting/clouds/registered-adapters.ts";
import { openDatabase } from "../../reporting/database.ts";
import { EventPartitions } from "../../reporting/event-partitions.ts";
import { reportingSettings } from "../../reporting/server/reporting-settings.ts";
import { runSync, SyncRunFailedError } from "../../reporting/sync/sync-run.ts";
import { adminSettings, jsonLine } from "./admin-support.ts";

/** `sync` reads what the server reads for a run, from the same variables. */
const syncSettings = {
  dbUrl: adminSettings.dbUrl,
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
 * `reporting-admin sync --cloud`: a reconciliation run now, as the server's route runs one. Its
 * SyncResult is the one line on stdout; its log goes to stderr.
 */
export const syncCommand = command({
  name: "sync",
  description:
    "reconcile a cloud now, as POST /internal/sync/{cloud} does (same lock, same sync_runs rows); prints the SyncResult",
  args: {
    cloud: {
      type: "string",
      valueHint: "name",
      required: true,
      description: "the cloud, as SVC_REPORTING_CLOUDS_CONFIG names it",
    },
    at: {
      type: "string",
      valueHint: "instant",
      description: "the run instant, RFC 3339 (only with SVC_REPORTING_SYNC_ALLOW_AT)",
    },
  },
  settings: syncSettings,
  checkSettings: (config, flags) =>
    flags.at !== undefined && !config.syncAllowAt
      ? [{ variable: "SVC_REPORTING_SYNC_ALLOW_AT", message: "--at needs SVC_REPORTING_SYNC_ALLOW_AT=true" }]
      : [],
  parse: (flags) => ({ at: flags.at === undefined ? undefined : readAt(flags.at) }),
  run: async ({ flags, options, config, env, io }) => {
    let clouds: Map<string, Cloud>;
    try {
      clouds = loadClouds(config.cloudsConfig, registeredAdapters({ env, cwd: io.cwd }));
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
            destination: { write: (line: string) => io.stderr(line) },
          }),
        },
        {
          cloud,
          ...(options.at === undefined ? {} : { at: options.at }),
          settleMs: config.syncSettleS * 1000,
          budgetMs: config.syncBudgetS * 1000,
        },
      );
      io.stdout(jsonLine(result));
    } catch (error) {
      // A failed run is no mistake of the caller: its reason, for cron to report.
      if (error instanceof SyncRunFailedError) throw new Error(error.message, { cause: error });
      if (error instanceof SvcError && statusOf(error.code) < 500)
        throw new UsageError(error.message, { cause: error });
      throw new Error(describeDatabaseFailure(error), { cause: error });
    } finally {
      await database.close();
    }
  },
});
