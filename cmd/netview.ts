// netview: the OVN network inspection API. Parses flags and environment, wires the clusters and the
// HTTP app, and handles signals; everything else is in lib/network/netview and lib/network/ovsdb.
//
// The databases are dialled before the HTTP app is loaded: each server spends a while building its
// first (large) reply, and this process spends that time loading the app's modules instead of
// waiting for it afterwards (decision 334). Hence the app's imports are dynamic, pino's too: the
// sessions log through an early log until the logger is loaded (decision 339).
import { readFileSync } from "node:fs";
import { command } from "../lib/foundation/cli/command.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { logLevelSetting } from "../lib/foundation/log/log-level-setting.ts";
import type { Logger } from "../lib/foundation/log/logger.ts";
import { metricsEnabledSetting } from "../lib/foundation/metrics/metrics-enabled-setting.ts";
import { exitOnFailure } from "../lib/foundation/process/shutdown.ts";
import { buildClusters } from "../lib/network/netview/build-clusters.ts";
import type { ClusterSet } from "../lib/network/netview/cluster.ts";
import { earlyLog } from "../lib/network/netview/early-log.ts";
import { netviewArgs } from "../lib/network/netview/netview-flags.ts";
import { netviewOptions } from "../lib/network/netview/netview-options.ts";

/** Loading the app waits at most this long for the servers to be asked for their rows. */
const dialWaitMs = 1000;

await runCli(
  command({
    name: "netview",
    description: "the OVN network inspection API",
    args: netviewArgs,
    settings: { logLevel: logLevelSetting, metricsEnabled: metricsEnabledSetting },
    parse: (flags) => netviewOptions(flags, (path) => readFileSync(path, "utf8")),
    run: async ({ options, config }) => {
      const loadLogger = async () =>
        (await import("../lib/foundation/log/logger.ts")).createLogger({
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
            import("../lib/foundation/http/serve.ts"),
            import("../lib/foundation/metrics/registry.ts"),
            import("../lib/network/netview/netview-app.ts"),
            import("../lib/network/netview/netview-metrics.ts"),
            import("../lib/network/netview/netview-ops.ts"),
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
  }),
);
