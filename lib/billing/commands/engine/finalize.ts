import { printLines } from "../../../foundation/cli/cli-io.ts";
import { command } from "../../../foundation/cli/command.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { finalizePeriod } from "../../engine/finalize-period.ts";
import { explained, periodFlag, readPeriod, withEngine } from "./command-support.ts";

/** `engine finalize --period [--run]`: the human gate that closes a month. */
export const finalizeCommand = command({
  name: "finalize",
  description: "Close a month on a completed run (the human gate)",
  args: {
    ...periodFlag,
    run: {
      type: "string",
      description:
        "the run to finalize (default: the latest completed regular run); a correction is named here",
    },
  },
  settings: engineDbSettings,
  parse: readPeriod,
  run: ({ flags, options, config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) =>
        printLines(io.stdout, await finalizePeriod(engine.sql, options.period, flags.run)),
      ),
    ),
});
