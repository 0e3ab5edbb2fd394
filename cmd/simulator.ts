import { StaleFilesError } from "../lib/billing/simulator/month-files.ts";
import { progressLine } from "../lib/billing/simulator/progress-line.ts";
import { parseReplayOptions, parseRunOptions } from "../lib/billing/simulator/run-options.ts";
import {
  checkRunSettings,
  isLocalBroker,
  replaySettings,
  runSettings,
} from "../lib/billing/simulator/simulator-settings.ts";
import { command, commandGroup } from "../lib/foundation/cli/command.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { UsageError } from "../lib/foundation/cli/usage-error.ts";
import { createLogger } from "../lib/foundation/log/logger.ts";
import { exitOnSignal } from "../lib/foundation/process/shutdown.ts";

const service = "svc-simulator";

const run = command({
  name: "run",
  description: "generate a seeded month: publish it, or write it with --out",
  args: {
    period: { type: "string", required: true, description: "month to simulate, YYYY-MM, must have ended" },
    seed: { type: "string", default: "1", description: "integer seed" },
    factor: {
      type: "string",
      default: "744",
      description: "virtual seconds per wall second; 0 publishes as fast as the broker confirms",
    },
    faults: { type: "string", description: "comma list of fault switches" },
    out: { type: "string", description: "directory for notifications.jsonl, events.jsonl, oracle.json" },
    "metrics-interval": {
      type: "string",
      default: "5m",
      description: "metrics grid, whole seconds from 30s to 24h",
    },
    "register-projects": { type: "boolean", default: false, description: "register the tenants first" },
    "allow-remote-broker": {
      type: "boolean",
      default: false,
      description: "allow a broker not on this machine",
    },
    "wait-for-collector": {
      type: "string",
      default: "2m",
      description: "how long to wait for a collector; 0 disables the wait",
    },
    tenants: {
      type: "string",
      default: "10",
      description: "classic tenants beside the two infrastructure tenants",
    },
  },
  settings: runSettings,
  checkSettings: checkRunSettings,
  parse: (flags) => parseRunOptions(flags, new Date()),
  run: async ({ options, config }) => {
    const logger = createLogger({ service, level: config.logLevel });
    if (config.amqpUrl === undefined && options.out === null) {
      throw new UsageError("set SVC_SIM_AMQP_URL or pass --out");
    }
    const amqpUrl = config.amqpUrl?.reveal();
    if (amqpUrl !== undefined && !options.allowRemoteBroker && !isLocalBroker(amqpUrl)) {
      throw new UsageError(
        "SVC_SIM_AMQP_URL names a broker not on this machine: pass --allow-remote-broker to publish there",
      );
    }
    const otlp =
      config.otlpUrl === undefined
        ? undefined
        : { url: config.otlpUrl, user: config.otlpUser ?? "", password: config.otlpPassword?.reveal() ?? "" };
    if (otlp !== undefined && amqpUrl === undefined) {
      logger.warn(
        "SVC_SIM_OTLP_URL is ignored in file mode: traffic is pushed on the clock of a run on the broker",
      );
    }
    if (options.registerProjects) {
      // Before anything is written or published: a refusal leaves no month behind (spec 2).
      const [{ registerProjects }, { generateTenants }] = await Promise.all([
        import("../lib/billing/simulator/register-projects.ts"),
        import("../lib/billing/simulator/generate-month.ts"),
      ]);
      await registerProjects({
        reportingUrl: config.reportingUrl as URL,
        apiToken: config.apiToken?.reveal() ?? "",
        cloud: config.cloud,
        gardenCloud: config.gardenCloud ?? "",
        period: options.period,
        tenants: generateTenants({
          seed: options.seed,
          period: options.period,
          cloud: config.cloud,
          scale: options.scale,
        }),
        logger,
      });
    }

    const controller = new AbortController();
    const progress = progressLine(process.stderr);
    // The handler is in place before the work starts: the generation's first synchronous stretch can
    // outlast the moment --out appears, and a signal with no handler yet kills the run with 130.
    let work: Promise<unknown> = Promise.resolve();
    exitOnSignal({
      logger,
      stop: async () => {
        controller.abort();
        await work.catch(() => null);
        progress.done();
      },
    });
    // Each mode is loaded only when it runs: the file mode then carries none of the broker's, HTTP
    // and OpenTelemetry packages (17 MiB of memory, and their start-up).
    const running =
      amqpUrl === undefined
        ? import("../lib/billing/simulator/run-file-mode.ts").then(({ runFileMode }) =>
            runFileMode(options, config.cloud, options.out ?? "", progress.update, controller.signal),
          )
        : import("../lib/billing/simulator/run-broker-mode.ts").then(({ runBrokerMode }) =>
            runBrokerMode({
              options,
              cloud: config.cloud,
              amqpUrl,
              listen: { hostname: config.httpAddr, port: config.httpPort },
              metricsEnabled: config.metricsEnabled,
              otlp,
              logger,
              signal: controller.signal,
              progress: progress.update,
            }),
          );
    work = running;
    try {
      const report = await running;
      progress.done();
      if (report === null || controller.signal.aborted) return;
      logger.info(
        { period: options.period.name, seed: options.seed, faults: options.faults, ...report },
        amqpUrl === undefined
          ? `month ${options.period.name} written into ${options.out}`
          : `month ${options.period.name} published`,
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

const compare = command({
  name: "compare",
  description: "rate the oracle with a pricing model and compare it per resource with an engine export",
  args: {
    export: { type: "string", required: true, description: "the engine's export directory (with rated.csv)" },
    oracle: { type: "string", required: true, description: "the month's oracle.json" },
    pricing: { type: "string", required: true, description: "the pricing model the engine ran with" },
    registry: {
      type: "string",
      description:
        "a registry snapshot (projects, relations, the adjustment walk): compare the statements and kickbacks too",
    },
    corrects: {
      type: "string",
      description:
        "with --registry and a correction's export: the export of the run it corrects, to compare the credit notes",
    },
  },
  run: async ({ flags }) => {
    // Loaded here, not at the top: `run` starts (and installs its signal handlers) no later for it.
    const [{ compareFiles }, { comparisonReport }] = await Promise.all([
      import("../lib/billing/compare/compare-files.ts"),
      import("../lib/billing/compare/compare-oracle.ts"),
    ]);
    const comparison = await compareFiles({
      exportDir: flags.export,
      oracle: flags.oracle,
      pricing: flags.pricing,
      registry: flags.registry,
      corrects: flags.corrects,
    });
    for (const line of comparisonReport(comparison)) process.stdout.write(`${line}\n`);
    const differ = comparison.differences.length;
    const statementsDiffer = comparison.statements?.differences.length ?? 0;
    if (differ > 0) process.stderr.write(`${differ} resource${differ === 1 ? "" : "s"} differ\n`);
    if (statementsDiffer > 0)
      process.stderr.write(
        `${statementsDiffer} statement${statementsDiffer === 1 ? "" : "s"} or settlements differ\n`,
      );
    if (differ > 0 || statementsDiffer > 0) process.exit(1);
  },
});

const replay = command({
  name: "replay",
  description: "publish a recorded notifications file again, on the virtual clock from its first line",
  args: {
    in: {
      type: "string",
      required: true,
      description: "notifications.jsonl (or held-back.jsonl) to publish",
    },
    factor: {
      type: "string",
      default: "744",
      description: "virtual seconds per wall second; 0 publishes as fast as the broker confirms",
    },
    "wait-for-collector": {
      type: "string",
      default: "2m",
      description: "how long to wait for a collector; 0 disables the wait",
    },
    "allow-remote-broker": {
      type: "boolean",
      default: false,
      description: "allow a broker not on this machine",
    },
  },
  settings: replaySettings,
  parse: parseReplayOptions,
  run: async ({ options, config }) => {
    const logger = createLogger({ service, level: config.logLevel });
    const amqpUrl = config.amqpUrl.reveal();
    if (!options.allowRemoteBroker && !isLocalBroker(amqpUrl)) {
      throw new UsageError(
        "SVC_SIM_AMQP_URL names a broker not on this machine: pass --allow-remote-broker to publish there",
      );
    }
    const { readReplayFile, runReplay } = await import("../lib/billing/simulator/replay.ts");
    // The whole file is read, and refused, before the broker is dialled.
    const file = await readReplayFile(options.in);
    const controller = new AbortController();
    const work = runReplay({
      file,
      amqpUrl,
      factor: options.factor,
      waitForCollectorMs: options.waitForCollectorMs,
      listen: { hostname: config.httpAddr, port: config.httpPort },
      logger,
      signal: controller.signal,
    });
    exitOnSignal({
      logger,
      stop: async () => {
        controller.abort();
        await work.catch(() => null);
      },
    });
    const report = await work;
    if (!controller.signal.aborted) logger.info({ in: options.in, ...report }, `${options.in} replayed`);
  },
});

await runCli(
  commandGroup({
    name: "simulator",
    description: "the platform simulator: a seeded month, its faults and its oracle",
    subCommands: {
      run,
      replay,
      compare,
    },
  }),
);
