// The netview command (decision 45): builds the clusters and the HTTP app from its flags and
// environment and serves them; everything else is in lib/network/netview and lib/network/ovsdb.
//
// The databases are dialled before the HTTP app is loaded: each server spends a while building its
// first (large) reply, and this process spends that time loading the app's modules instead of
// waiting for it afterwards (decision 334). Hence the app's imports are dynamic, pino's too: the
// sessions log through an early log until the logger is loaded (decision 339).
import { readFileSync } from "node:fs";
import { type Command, command } from "../../../foundation/cli/command.ts";
import { exitCodes } from "../../../foundation/cli/exit-codes.ts";
import { logLevelSetting } from "../../../foundation/log/log-level-setting.ts";
import type { Logger } from "../../../foundation/log/logger.ts";
import { metricsEnabledSetting } from "../../../foundation/metrics/metrics-enabled-setting.ts";
import { exitOnFailure } from "../../../foundation/process/shutdown.ts";
import { buildClusters } from "../../netview/build-clusters.ts";
import type { ClusterSet } from "../../netview/cluster.ts";
import { earlyLog } from "../../netview/early-log.ts";
import { netviewArgs } from "../../netview/netview-flags.ts";
import { netviewOptions } from "../../netview/netview-options.ts";

/** Loading the app waits at most this long for the servers to be asked for their rows. */
const dialWaitMs = 1000;

/** netview's one command: the OVN network inspection API. */
export function netviewProgram(): Command {
  return command({
    // a server: 1 on a failure of its own, as the billing servers
    failureExit: exitCodes.fault,
    name: "netview",
    description: "the OVN network inspection API",
    args: netviewArgs,
    settings: { logLevel: logLevelSetting, metricsEnabled: metricsEnabledSetting },
    parse: (flags) => netviewOptions(flags, (path) => readFileSync(path, "utf8")),
    run: async ({ options, config }) => {
      const loadLogger = async () =>
        (await import("../../../foundation/log/logger.ts")).createLogger({
          service: "svc-netview",
          level: config.logLevel,
        });
      const early = earlyLog();
      let clusters: ClusterSet | undefined;
      let logger: Logger | undefined;
      try {
        clusters = buildClusters(options, early.log);
        clusters.start();
        await Promise.race([clusters.dialled(), Bun.sleep(dialWaitMs)]);
        logger = await loadLogger();
        early.bind(logger);
        const [{ serve }, { createRegistry }, { netviewApp }, { registerNetviewMetrics }, opsModule] =
          await Promise.all([
            import("../../../foundation/http/serve.ts"),
            import("../../../foundation/metrics/registry.ts"),
            import("../../netview/netview-app.ts"),
            import("../../netview/netview-metrics.ts"),
            import("../../netview/netview-ops.ts"),
          ]);
        const registry = createRegistry({ service: "svc-netview" });
        registerNetviewMetrics(registry, clusters);
        const ops = opsModule.buildOps({ options, clusters, log: logger });
        opsModule.registerOpsMetrics(registry, ops);
        const app = netviewApp({
          clusters,
          settings: {
            writeEnabled: options.writeEnabled,
            wsAllowedOrigins: options.wsAllowedOrigins,
            chassisStaleThresholdMs: options.chassisStaleThresholdMs,
          },
          logger,
          registry,
          metricsEnabled: config.metricsEnabled,
          ops,
        });
        const started = clusters;
        serve(app, {
          hostname: options.hostname,
          port: options.port,
          logger,
          close: async () => {
            ops.stop();
            started.stop();
          },
        });
        ops.start();
      } catch (error) {
        clusters?.stop();
        exitOnFailure(logger ?? (await loadLogger()), "netview failed to start")(error);
      }
    },
  });
}
