import { printLines } from "../../../foundation/cli/cli-io.ts";
import { command } from "../../../foundation/cli/command.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { listPeriods } from "../../engine/list-periods.ts";
import { explained, withEngine } from "./command-support.ts";

/** `engine periods list`: the periods with a run. */
export const periodsListCommand = command({
  name: "list",
  description: "One line per period with a run; finalized ones name their run",
  settings: engineDbSettings,
  run: ({ config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) =>
        printLines(io.stdout, await listPeriods(engine.sql)),
      ),
    ),
});
