import { runCommand, runMain, showUsage } from "citty";
import { describeEngineFailure, engineCommand } from "../lib/engine/engine-cli.ts";

const command = engineCommand(process.env, { print: (line) => process.stdout.write(`${line}\n`) });
const rawArgs = process.argv.slice(2);
if (rawArgs.length === 0) {
  await showUsage(command);
  process.exit(1);
}
// citty's runMain prints the usage of the subcommand named before `--help` and exits 0.
if (rawArgs.includes("--help") || rawArgs.includes("-h")) await runMain(command, { rawArgs });
try {
  await runCommand(command, { rawArgs });
  process.exit(0);
} catch (error) {
  process.stderr.write(`engine: ${describeEngineFailure(error)}\n`);
  process.exit(1);
}
