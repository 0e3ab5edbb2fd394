import { collectorProgram } from "../lib/billing/commands/collector/collector-program.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";

await runCli(collectorProgram());
