import { adminProgram } from "../lib/billing/reporting/admin-cli.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";

await runCli(
  adminProgram({
    print: (line) => process.stdout.write(`${line}\n`),
    cwd: process.cwd(),
    log: process.stderr,
  }),
);
