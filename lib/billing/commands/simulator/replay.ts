import { command } from "../../../foundation/cli/command.ts";
import { exitCodes } from "../../../foundation/cli/exit-codes.ts";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { createLogger } from "../../../foundation/log/logger.ts";
import { exitOnSignal } from "../../../foundation/process/shutdown.ts";
import { parseReplayOptions } from "../../simulator/run-options.ts";
import { isLocalBroker, replaySettings } from "../../simulator/simulator-settings.ts";
import { simulatorService } from "./simulator-service.ts";

/** `simulator replay --in`: a recorded notifications file published again on its virtual clock. */
export const replayCommand = command({
  // every failure of the simulator exits 1 (docs/simulator.md#exit-status)
  failureExit: exitCodes.fault,
  name: "replay",
  description: "publish a recorded notifications file again, on the virtual clock from its first line",
  args: {
    in: {
      type: "string",
      valueHint: "file",
      required: true,
      description: "notifications.jsonl (or held-back.jsonl) to publish",
    },
    factor: {
      type: "string",
      valueHint: "n",
      default: "744",
      description: "virtual seconds per wall second; 0 publishes as fast as the broker confirms",
    },
    "wait-for-collector": {
      type: "string",
      valueHint: "duration",
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
    const logger = createLogger({ service: simulatorService, level: config.logLevel });
    const amqpUrl = config.amqpUrl.reveal();
    if (!options.allowRemoteBroker && !isLocalBroker(amqpUrl)) {
      throw new UsageError(
        "SVC_SIM_AMQP_URL names a broker not on this machine: pass --allow-remote-broker to publish there",
      );
    }
    const { readReplayFile, ReplayFileError, runReplay } = await import("../../simulator/replay.ts");
    // The whole file is read, and refused, before the broker is dialled.
    const file = await readReplayFile(options.in).catch((error: unknown) => {
      throw error instanceof ReplayFileError ? new UsageError(error.message, { cause: error }) : error;
    });
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
