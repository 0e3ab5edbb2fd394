import { up } from "../harness/scenario/up.ts";

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

// The first Ctrl-C or SIGTERM stops the stack in order and exits 0; a second one exits at once, and
// the harness's exit handler and reaper kill what is left.
let stopping = false;
const stopRequested = new Promise<void>((resolve) => {
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(signal === "SIGINT" ? 130 : 143);
    stopping = true;
    resolve();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
});

try {
  await up({ print: (line) => process.stdout.write(`${line}\n`), until: stopRequested });
  process.exit(0);
} catch (error) {
  process.stderr.write(`scenario up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
