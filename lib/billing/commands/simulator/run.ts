import { command } from "../../../foundation/cli/command.ts";
import { exitCodes } from "../../../foundation/cli/exit-codes.ts";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { createLogger } from "../../../foundation/log/logger.ts";
import { exitOnSignal } from "../../../foundation/process/shutdown.ts";
import { StaleFilesError } from "../../simulator/month-files.ts";
import { progressLine } from "../../simulator/progress-line.ts";
import { parseRunOptions } from "../../simulator/run-options.ts";
import { checkRunSettings, isLocalBroker, runSettings } from "../../simulator/simulator-settings.ts";
import { simulatorService } from "./simulator-service.ts";

/** `simulator run`: a seeded month, published on the broker or written with --out. */
export const runCommand = command({
  // every failure of the simulator exits 1 (docs/simulator.md#exit-status)
  failureExit: exitCodes.fault,
  name: "run",
  description: "generate a seeded month: publish it, or write it with --out",
  args: {
    period: {
      type: "string",
      valueHint: "YYYY-MM",
      required: true,
      description: "month to simulate, YYYY-MM, must have ended",
    },
    seed: { type: "string", valueHint: "n", default: "1", description: "integer seed" },
    factor: {
      type: "string",
      valueHint: "n",
      default: "744",
      description: "virtual seconds per wall second; 0 publishes as fast as the broker confirms",
    },
    faults: { type: "string", valueHint: "list", description: "comma list of fault switches" },
    out: {
      type: "string",
      valueHint: "dir",
      description: "directory for notifications.jsonl, events.jsonl, oracle.json",
    },
    "metrics-interval": {
      type: "string",
      valueHint: "duration",
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
      valueHint: "duration",
      default: "2m",
      description: "how long to wait for a collector; 0 disables the wait",
    },
    tenants: {
      type: "string",
      valueHint: "n",
      default: "10",
      description: "classic tenants beside the two infrastructure tenants",
    },
    "nova-format": {
      type: "string",
      default: "legacy",
      description: "what nova sends: legacy, versioned or both (its notification_format)",
    },
    "extra-types": {
      type: "string",
      description: "comma list of resource types beyond the default month: volume_snapshot, volume_backup",
    },
  },
  settings: runSettings,
  checkSettings: checkRunSettings,
  parse: (flags) => parseRunOptions(flags, new Date()),
  run: async ({ options, config, io }) => {
    const logger = createLogger({ service: simulatorService, level: config.logLevel });
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
      // Before anything is written or published: a refusal leaves no month behind (docs/simulator.md#exit-status).
      const [{ registerProjects, RegistrationError }, { generateTenants }] = await Promise.all([
        import("../../simulator/register-projects.ts"),
        import("../../simulator/generate-month.ts"),
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
      }).catch((error: unknown) => {
        // The registry said no: a refusal. An API that cannot be reached (a cause below) is a failure.
        if (error instanceof RegistrationError && error.cause === undefined)
          throw new UsageError(error.message, { cause: error });
        throw error;
      });
    }

    const controller = new AbortController();
    const progress = progressLine({ isTTY: io.stderrIsTerminal, write: io.stderr });
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
        ? import("../../simulator/run-file-mode.ts").then(({ runFileMode }) =>
            runFileMode(options, config.cloud, options.out ?? "", progress.update, controller.signal),
          )
        : import("../../simulator/run-broker-mode.ts").then(({ runBrokerMode }) =>
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
        io.exit(exitCodes.refused);
      }
      throw err;
    }
  },
});
