import { simulatorProgram } from "../lib/billing/commands/simulator/simulator-program.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";

await runCli(simulatorProgram());
