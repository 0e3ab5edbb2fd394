import { command } from "../../../foundation/cli/command.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { finalizedLine, finalizePeriod } from "../../engine/finalize-period.ts";
import { explained, jsonFlag, periodFlag, readPeriod, report, withEngine } from "./command-support.ts";

/** `engine finalize --period [--run]`: the human gate that closes a month. */
export const finalizeCommand = command({
  name: "finalize",
  description: "close a month on a completed run (the human gate)",
  args: {
    ...periodFlag,
    run: {
      type: "string",
      valueHint: "id",
      description:
        "the run to finalize; a correction is named here (default: the latest completed regular run)",
    },
    ...jsonFlag,
  },
  settings: engineDbSettings,
  parse: readPeriod,
  run: ({ flags, options, config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) => {
        const finalized = await finalizePeriod(engine.sql, options.period, flags.run);
        report(io, flags.json, finalized, () => [finalizedLine(finalized)]);
      }),
    ),
});
