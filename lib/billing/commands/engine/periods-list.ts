import { command } from "../../../foundation/cli/command.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { listPeriods, periodLines } from "../../engine/list-periods.ts";
import { explained, jsonFlag, report, withEngine } from "./command-support.ts";

/** `engine periods list`: the periods with a run. */
export const periodsListCommand = command({
  name: "list",
  description: "one line per period with a run; finalized ones name their run",
  args: jsonFlag,
  settings: engineDbSettings,
  run: ({ flags, config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) => {
        const periods = await listPeriods(engine.sql);
        report(io, flags.json, periods, () => periodLines(periods));
      }),
    ),
});
