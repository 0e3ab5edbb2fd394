import pino from "pino";
import { up } from "../harness/scenario/up.ts";
import { configOrExit } from "../lib/cli/config-or-exit.ts";
import { logLevelSetting } from "../lib/log/log-level-setting.ts";
import { createLogger } from "../lib/log/logger.ts";
import { exitOnFailure, exitOnSignal } from "../lib/process/shutdown.ts";

const usage = `usage: bun scenario <command>

commands:
  up    start PostgreSQL, RabbitMQ, OVN (two chassis) and VictoriaMetrics, print how to reach them,
        keep them up until Ctrl-C or SIGTERM, then stop them and remove their files
`;

const [command, ...rest] = process.argv.slice(2);

if (command === "--help" || command === "-h" || command === "help") {
  process.stdout.write(usage);
  process.exit(0);
}
if (command !== "up" || rest.length > 0) {
  process.stderr.write(
    command === undefined ? usage : `unknown command: ${[command, ...rest].join(" ")}\n\n${usage}`,
  );
  process.exit(1);
}

const config = configOrExit("svc-scenario", process.env, { logLevel: logLevelSetting });
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
const running = up({ print: (line) => process.stdout.write(`${line}\n`), until: stopRequested });
exitOnSignal({
  logger,
  stop: async () => {
    release();
    await running;
  },
});
running.catch(exitOnFailure(logger, "scenario up failed"));
