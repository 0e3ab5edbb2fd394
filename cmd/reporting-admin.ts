import { runCli } from "../lib/cli/run-cli.ts";
import { adminProgram } from "../lib/reporting/admin-cli.ts";

await runCli(
  adminProgram({
    print: (line) => process.stdout.write(`${line}\n`),
    cwd: process.cwd(),
    log: process.stderr,
  }),
);
