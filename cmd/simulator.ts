import { defineCommand, runMain } from "citty";
import { configOrExit } from "../lib/cli/config-or-exit.ts";
import type { Comparison } from "../lib/compare/compare-oracle.ts";
import { ValidationError } from "../lib/errors/svc-error.ts";
import { createLogger } from "../lib/log/logger.ts";
import { exitOnFailure, exitOnSignal } from "../lib/process/shutdown.ts";
import { StaleFilesError } from "../lib/simulator/month-files.ts";
import { progressLine } from "../lib/simulator/progress-line.ts";
import { runFileMode } from "../lib/simulator/run-file-mode.ts";
import { parseRunOptions, type RunOptions } from "../lib/simulator/run-options.ts";
import { checkRunSettings, isLocalBroker, runSettings } from "../lib/simulator/simulator-settings.ts";

const service = "svc-simulator";

/** A caller's mistake: one JSON error line and exit 1, before anything is written or dialled. */
function refuse(message: string): never {
  createLogger({ service, level: "ERROR" }).error(message);
  process.exit(1);
}

/** A part of the simulator a later issue builds: say so and exit 2, never pretend. */
function notBuiltYet(message: string): never {
  createLogger({ service, level: "ERROR" }).error(message);
  process.exit(2);
}

const run = defineCommand({
  meta: { name: "run", description: "generate a seeded month: publish it, or write it with --out" },
  args: {
    period: { type: "string", description: "month to simulate, YYYY-MM, must have ended" },
    seed: { type: "string", description: "integer seed (default 1)" },
    factor: {
      type: "string",
      description: "virtual seconds per wall second; 0 as fast as confirmed (default 744)",
    },
    faults: { type: "string", description: "comma list of fault switches" },
    out: { type: "string", description: "directory for notifications.jsonl, events.jsonl, oracle.json" },
    "metrics-interval": {
      type: "string",
      description: "metrics grid, whole seconds from 30s to 24h (default 5m)",
    },
    "register-projects": { type: "boolean", default: false, description: "register the tenants first" },
    "allow-remote-broker": {
      type: "boolean",
      default: false,
      description: "allow a broker not on this machine",
    },
    "wait-for-collector": { type: "string", description: "wait for a collector, 0 disables (default 2m)" },
    tenants: {
      type: "string",
      description: "classic tenants beside the two infrastructure tenants (default 10)",
    },
  },
  async run({ args }) {
    let options: RunOptions;
    try {
      options = parseRunOptions(args, new Date());
    } catch (err) {
      if (err instanceof ValidationError) refuse(err.message);
      throw err;
    }
    const config = configOrExit(service, process.env, runSettings, checkRunSettings);
    const logger = createLogger({ service, level: config.logLevel });
    if (config.amqpUrl === undefined && options.out === null) refuse("set SVC_SIM_AMQP_URL or pass --out");
    if (config.amqpUrl !== undefined) {
      if (!options.allowRemoteBroker && !isLocalBroker(config.amqpUrl.reveal())) {
        refuse(
          "SVC_SIM_AMQP_URL names a broker not on this machine: pass --allow-remote-broker to publish there",
        );
      }
      notBuiltYet(
        "publishing to a broker is not built yet: unset SVC_SIM_AMQP_URL and pass --out for file mode",
      );
    }
    if (options.registerProjects) notBuiltYet("project registration (--register-projects) is not built yet");
    const out = options.out ?? refuse("set SVC_SIM_AMQP_URL or pass --out");

    const controller = new AbortController();
    const progress = progressLine(process.stderr);
    const work = runFileMode(options, config.cloud, out, progress.update, controller.signal);
    exitOnSignal({
      logger,
      stop: async () => {
        controller.abort();
        await work.catch(() => null);
        progress.done();
      },
    });
    try {
      const report = await work;
      progress.done();
      if (report === null) return;
      logger.info(
        { period: options.period.name, seed: options.seed, faults: options.faults, ...report },
        `month ${options.period.name} written into ${out}`,
      );
    } catch (err) {
      progress.done();
      if (err instanceof StaleFilesError) {
        logger.error({ paths: err.paths }, err.message);
        process.exit(1);
      }
      throw err;
    }
  },
});

const main = defineCommand({
  meta: {
    name: "simulator",
    description: "the platform simulator: a seeded month, its faults and its oracle",
  },
  subCommands: {
    run,
    replay: defineCommand({
      meta: { name: "replay" },
      run: () => notBuiltYet("simulator replay is not built yet"),
    }),
    compare: defineCommand({
      meta: {
        name: "compare",
        description: "rate the oracle with a pricing model and compare it per resource with an engine export",
      },
      args: {
        export: { type: "string", description: "the engine's export directory (with rated.csv)" },
        oracle: { type: "string", description: "the month's oracle.json" },
        pricing: { type: "string", description: "the pricing model the engine ran with" },
      },
      async run({ args }) {
        const { export: exportDir, oracle, pricing } = args;
        if (!exportDir || !oracle || !pricing) refuse("compare needs --export, --oracle and --pricing");
        // Loaded here, not at the top: `run` starts (and installs its signal handlers) no later for it.
        const [
          { CompareInputError, compareFiles },
          { comparisonReport },
          { RatedCsvError },
          { PricingModelError },
        ] = await Promise.all([
          import("../lib/compare/compare-files.ts"),
          import("../lib/compare/compare-oracle.ts"),
          import("../lib/compare/rated-csv.ts"),
          import("../lib/pricing/pricing-model.ts"),
        ]);
        const isCompareRefusal = (err: unknown): err is Error =>
          err instanceof CompareInputError ||
          err instanceof RatedCsvError ||
          err instanceof PricingModelError ||
          err instanceof ValidationError;
        let comparison: Comparison;
        try {
          comparison = await compareFiles({ exportDir, oracle, pricing });
        } catch (err) {
          if (isCompareRefusal(err)) refuse(err.message);
          throw err;
        }
        for (const line of comparisonReport(comparison)) process.stdout.write(`${line}\n`);
        const differ = comparison.differences.length;
        if (differ > 0) {
          process.stderr.write(`${differ} resource${differ === 1 ? "" : "s"} differ\n`);
          process.exit(1);
        }
      },
    }),
  },
});

runMain(main).catch(exitOnFailure(createLogger({ service, level: "ERROR" }), "the simulator failed"));
