import { command } from "../../../lib/foundation/cli/command.ts";
import { logLevelSetting } from "../../../lib/foundation/log/log-level-setting.ts";
import { createLogger } from "../../../lib/foundation/log/logger.ts";
import { exitOnFailure, exitOnSignal } from "../../../lib/foundation/process/shutdown.ts";
import { up as startStack } from "../../scenario/up.ts";

/** `bun scenario up`: the services alone, for working by hand, until Ctrl-C or SIGTERM. */
export const upCommand = command({
  name: "up",
  description:
    "start PostgreSQL, RabbitMQ, OVN (two chassis) and VictoriaMetrics, print how to reach them, keep them up until Ctrl-C or SIGTERM, then stop them and remove their files",
  settings: { logLevel: logLevelSetting },
  run: ({ config, io }) => {
    // stdout carries the lines a person copies (URLs, export lines); the JSON log goes to stderr.
    const logger = createLogger({
      service: "svc-scenario",
      level: config.logLevel,
      destination: { write: (line: string) => io.stderr(line) },
    });
    let release = (): void => {};
    const stopRequested = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Installed before the services start, so that a Ctrl-C during the start also cleans up.
    const running = startStack({ print: (line) => io.stdout(`${line}\n`), until: stopRequested });
    exitOnSignal({
      logger,
      stop: async () => {
        release();
        await running;
      },
    });
    running.catch(exitOnFailure(logger, "scenario up failed"));
  },
});
