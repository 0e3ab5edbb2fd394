import { runCommand, showUsage } from "citty";
import { adminCommand, describeFailure } from "../lib/reporting/admin-cli.ts";

const command = adminCommand(process.env, { print: (line) => process.stdout.write(`${line}\n`) });
const rawArgs = process.argv.slice(2);
try {
  if (rawArgs.length === 0 || rawArgs.includes("--help") || rawArgs.includes("-h")) {
    await showUsage(command);
    process.exit(rawArgs.length === 0 ? 1 : 0);
  }
  await runCommand(command, { rawArgs });
  process.exit(0);
} catch (error) {
  process.stderr.write(`reporting-admin: ${describeFailure(error)}\n`);
  process.exit(1);
}
