import { runCli } from "../lib/cli/run-cli.ts";
import { engineProgram } from "../lib/engine/engine-cli.ts";
import { withAllocatorEnv } from "../lib/process/allocator-env.ts";

// A month is metered in this process: it runs with freed memory kept (decision 436).
await withAllocatorEnv();
await runCli(engineProgram({ print: (line) => process.stdout.write(`${line}\n`) }));
