import { type Command, command } from "../../../foundation/cli/command.ts";
import { exitCodes } from "../../../foundation/cli/exit-codes.ts";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { serve } from "../../../foundation/http/serve.ts";
import { createLogger } from "../../../foundation/log/logger.ts";
import { createRegistry } from "../../../foundation/metrics/registry.ts";
import { exitOnFailure } from "../../../foundation/process/shutdown.ts";
import { Authenticator } from "../../reporting/auth/authenticator.ts";
import { type Cloud, CloudsFileError, loadClouds } from "../../reporting/clouds/clouds-file.ts";
import { registeredAdapters } from "../../reporting/clouds/registered-adapters.ts";
import { openDatabase } from "../../reporting/database.ts";
import { EventPartitions } from "../../reporting/event-partitions.ts";
import { HealthMonitor } from "../../reporting/server/health-monitor.ts";
import { reportingApp, reportingService } from "../../reporting/server/reporting-app.ts";
import { ReportingMetrics } from "../../reporting/server/reporting-metrics.ts";
import { checkReportingSettings, reportingSettings } from "../../reporting/server/reporting-settings.ts";

/**
 * The Reporting API's one command (decision 45). It takes no flags and no arguments (docs/reporting-api.md#the-server-process): every
 * setting comes from the environment.
 */
export function reportingProgram(): Command {
  return command({
    // the Reporting API exits 1 on any failure (docs/reporting-api.md#the-server-process)
    failureExit: exitCodes.fault,
    name: "reporting",
    description:
      "the Reporting API: event history, projection, registry and reads (settings: environment only)",
    settings: reportingSettings,
    checkSettings: checkReportingSettings,
    run: ({ config, env, io }) => {
      // A clouds file that cannot be used is a refusal (exit 1), named before anything starts.
      let clouds: Map<string, Cloud>;
      try {
        clouds = loadClouds(config.cloudsConfig, registeredAdapters({ env, cwd: io.cwd }));
      } catch (error) {
        if (error instanceof CloudsFileError) throw new UsageError(error.message, { cause: error });
        throw error;
      }
      const logger = createLogger({ service: reportingService, level: config.logLevel });
      try {
        if (config.authMode === "disabled") {
          logger.warn("SVC_REPORTING_AUTH_MODE is disabled: every request is served without a credential");
        }
        // The pool connects lazily: the process starts while the database is down, and the probes say so.
        const database = openDatabase(config.dbUrl.reveal(), { max: config.dbMaxConns, connectTimeout: 3 });
        const registry = createRegistry();
        const metrics = new ReportingMetrics(registry);
        const health = new HealthMonitor(
          async () => {
            await database.sql`select 1`;
          },
          { thresholdMs: config.unhealthyThresholdS * 1000 },
        );
        const stopHealth = health.start(5000);
        const stopRefresher = config.metricsEnabled
          ? metrics.startRefresher(database.sql, config.metricsRefreshS, logger)
          : () => {};
        const app = reportingApp({
          logger,
          sql: database.sql,
          partitions: new EventPartitions(database.sql),
          auth: new Authenticator({
            mode: config.authMode,
            sql: database.sql,
            internalToken: config.internalToken,
          }),
          health,
          registry,
          metrics,
          metricsEnabled: config.metricsEnabled,
          requireSizeSchema: config.requireSizeSchema,
          attributingRelationTypes: config.attributingRelationTypes,
          clouds,
          sync: { allowAt: config.syncAllowAt, budgetS: config.syncBudgetS, settleS: config.syncSettleS },
        });
        serve(app, {
          hostname: "0.0.0.0",
          port: config.httpPort,
          logger,
          close: async () => {
            stopHealth();
            stopRefresher();
            await database.close();
          },
        });
        logger.info({ clouds: [...clouds.keys()], auth_mode: config.authMode }, "reporting server started");
      } catch (error) {
        exitOnFailure(logger, "the reporting server cannot start")(error);
      }
    },
  });
}
