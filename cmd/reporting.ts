import { reportingProgram } from "../lib/billing/commands/reporting/reporting-program.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";

await runCli(reportingProgram());
