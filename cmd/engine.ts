import { runCli } from "../lib/cli/run-cli.ts";
import { engineProgram } from "../lib/engine/engine-cli.ts";

await runCli(engineProgram({ print: (line) => process.stdout.write(`${line}\n`) }));
