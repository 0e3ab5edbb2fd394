import { command } from "../lib/cli/command.ts";
import { runCli } from "../lib/cli/run-cli.ts";
import { NotBuiltError } from "../lib/cli/usage-error.ts";

await runCli(
  command({
    name: "engine",
    description: "the metering engine: runs, finalize, corrections, credit notes, exports",
    run: () => {
      throw new NotBuiltError("engine is not built yet");
    },
  }),
);
