// netview: the OVN network inspection API. Parses flags and environment, wires the clusters and the
// HTTP app, and handles signals; everything else is in lib/netview and lib/ovsdb.
import { readFileSync } from "node:fs";
import { command } from "../lib/cli/command.ts";
import { runCli } from "../lib/cli/run-cli.ts";
import { serve } from "../lib/http/serve.ts";
import { logLevelSetting } from "../lib/log/log-level-setting.ts";
import { createLogger } from "../lib/log/logger.ts";
import { metricsEnabledSetting } from "../lib/metrics/metrics-enabled-setting.ts";
import { createRegistry } from "../lib/metrics/registry.ts";
import { buildClusters } from "../lib/netview/build-clusters.ts";
import { netviewApp } from "../lib/netview/netview-app.ts";
import { netviewArgs } from "../lib/netview/netview-flags.ts";
import { registerNetviewMetrics } from "../lib/netview/netview-metrics.ts";
import { buildOps, registerOpsMetrics } from "../lib/netview/netview-ops.ts";
import { netviewOptions } from "../lib/netview/netview-options.ts";
import { exitOnFailure } from "../lib/process/shutdown.ts";

await runCli(
  command({
    name: "netview",
    description: "the OVN network inspection API",
    args: netviewArgs,
    settings: { logLevel: logLevelSetting, metricsEnabled: metricsEnabledSetting },
    parse: (flags) => netviewOptions(flags, (path) => readFileSync(path, "utf8")),
    run: ({ options, config }) => {
      const logger = createLogger({ service: "svc-netview", level: config.logLevel });
      try {
        const clusters = buildClusters(options, logger);
        const registry = createRegistry({ service: "svc-netview" });
        registerNetviewMetrics(registry, clusters);
        const ops = buildOps({ options, clusters, log: logger });
        registerOpsMetrics(registry, ops);
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
        serve(app, {
          hostname: options.hostname,
          port: options.port,
          logger,
          close: async () => {
            ops.stop();
            clusters.stop();
          },
        });
        ops.start();
        clusters.start();
      } catch (error) {
        exitOnFailure(logger, "netview failed to start")(error);
      }
    },
  }),
);
