import { finalizedLine, finalizePeriod } from "../../engine/finalize-period.ts";
import { engineCommand, jsonFlag, periodFlag, readPeriod, report, runFlag } from "./command-support.ts";

/** `engine finalize --period [--run]`: the human gate that closes a month. */
export const finalizeCommand = engineCommand({
  name: "finalize",
  description: "close a month on a completed run (the human gate)",
  args: {
    ...periodFlag,
    ...runFlag("the run to finalize; a correction is named here (default: the latest completed regular run)"),
    ...jsonFlag,
  },
  parse: readPeriod,
  work: async (engine, { flags, options, io }) => {
    const finalized = await finalizePeriod(engine.sql, options.period, flags.run);
    report(io, flags.json, finalized, () => [finalizedLine(finalized)]);
  },
});
