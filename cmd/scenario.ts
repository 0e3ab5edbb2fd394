import { scenarioProgram } from "../harness/commands/scenario/scenario-program.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { scenarios } from "../scenarios/index.ts";

await runCli(scenarioProgram(scenarios));
