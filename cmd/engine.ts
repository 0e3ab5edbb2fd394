import { engineProgram } from "../lib/billing/commands/engine/engine-program.ts";
import { runCli } from "../lib/foundation/cli/run-cli.ts";
import { withAllocatorEnv } from "../lib/foundation/process/allocator-env.ts";

// A month is metered in this process: it runs with freed memory kept (decision 436).
await withAllocatorEnv();
await runCli(engineProgram());
