import { listPeriods, periodLines } from "../../engine/list-periods.ts";
import { engineCommand, jsonFlag, report } from "./command-support.ts";

/** `engine periods list`: the periods with a run. */
export const periodsListCommand = engineCommand({
  name: "list",
  description: "one line per period with a run; finalized ones name their run",
  args: jsonFlag,
  work: async (engine, { flags, io }) => {
    const periods = await listPeriods(engine.sql);
    report(io, flags.json, periods, () => periodLines(periods));
  },
});
