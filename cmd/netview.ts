// netview: the OVN network inspection API. Parses flags and environment, wires the clusters and the
// HTTP app, and handles signals; everything else is in lib/netview and lib/ovsdb.
import { readFileSync } from "node:fs";
import { ConfigError } from "../lib/config/config-error.ts";
import { readConfig } from "../lib/config/read-config.ts";
import { serve } from "../lib/http/serve.ts";
import { logLevelSetting } from "../lib/log/log-level-setting.ts";
import { createLogger } from "../lib/log/logger.ts";
import { metricsEnabledSetting } from "../lib/metrics/metrics-enabled-setting.ts";
import { createRegistry } from "../lib/metrics/registry.ts";
import { buildClusters } from "../lib/netview/build-clusters.ts";
import { netviewApp } from "../lib/netview/netview-app.ts";
import { registerNetviewMetrics } from "../lib/netview/netview-metrics.ts";
import { OptionsError, parseNetviewOptions, usage } from "../lib/netview/netview-options.ts";
import { exitOnFailure } from "../lib/process/shutdown.ts";

const argv = Bun.argv.slice(2);
if (argv.includes("--help") || argv.includes("-h")) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

let env: { logLevel: "DEBUG" | "INFO" | "WARN" | "ERROR"; metricsEnabled: boolean };
let options: ReturnType<typeof parseNetviewOptions>;
try {
  env = readConfig(process.env, { logLevel: logLevelSetting, metricsEnabled: metricsEnabledSetting });
  options = parseNetviewOptions(argv, (path) => readFileSync(path, "utf8"));
} catch (error) {
  if (error instanceof OptionsError || error instanceof ConfigError) {
    const problems = error instanceof OptionsError ? error.problems : error.problems.map((p) => p.message);
    process.stderr.write(`netview: ${problems.join("\nnetview: ")}\n${usage}\n`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ service: "svc-netview", level: env.logLevel });
try {
  const clusters = buildClusters(options, logger);
  const registry = createRegistry({ service: "svc-netview" });
  registerNetviewMetrics(registry, clusters);
  const app = netviewApp({
    clusters,
    settings: {
      writeEnabled: options.writeEnabled,
      wsAllowedOrigins: options.wsAllowedOrigins,
      chassisStaleThresholdMs: options.chassisStaleThresholdMs,
    },
    logger,
    registry,
    metricsEnabled: env.metricsEnabled,
  });
  serve(app, {
    hostname: options.hostname,
    port: options.port,
    logger,
    close: async () => clusters.stop(),
  });
  clusters.start();
} catch (error) {
  exitOnFailure(logger, "netview failed to start")(error);
}
