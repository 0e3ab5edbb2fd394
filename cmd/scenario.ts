import pino from "pino";
import { scenarioCommands } from "../harness/scenario/scenario-cli.ts";
import { up as startStack } from "../harness/scenario/up.ts";
import { command, commandGroup } from "../lib/foundation/cli/command.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { logLevelSetting } from "../lib/foundation/log/log-level-setting.ts";
import { createLogger } from "../lib/foundation/log/logger.ts";
import { exitOnFailure, exitOnSignal } from "../lib/foundation/process/shutdown.ts";
import { scenarios } from "../scenarios/index.ts";

const up = command({
  name: "up",
  description:
    "start PostgreSQL, RabbitMQ, OVN (two chassis) and VictoriaMetrics, print how to reach them, keep them up until Ctrl-C or SIGTERM, then stop them and remove their files",
  settings: { logLevel: logLevelSetting },
  run: ({ config }) => {
    // stdout carries the lines a person copies (URLs, export lines); the JSON log goes to stderr.
    const logger = createLogger({
      service: "svc-scenario",
      level: config.logLevel,
      destination: pino.destination({ dest: 2, sync: true }),
    });
    let release = (): void => {};
    const stopRequested = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Installed before the services start, so that a Ctrl-C during the start also cleans up.
    const running = startStack({ print: (line) => process.stdout.write(`${line}\n`), until: stopRequested });
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

// Ctrl-C and SIGTERM do what the running scenario command last asked for.
let interrupt = (): void => process.exit(1);
let listening = false;
const commands = scenarioCommands(
  {
    stdout: process.stdout,
    onInterrupt: (handler) => {
      interrupt = handler;
      if (listening) return;
      listening = true;
      process.on("SIGINT", () => interrupt());
      process.on("SIGTERM", () => interrupt());
    },
    exit: (code) => process.exit(code),
  },
  scenarios,
);

await runCli(
  commandGroup({
    name: "scenario",
    description: "the scenario harness: private services, and simulated months run end to end",
    subCommands: { up, ...commands },
  }),
);
