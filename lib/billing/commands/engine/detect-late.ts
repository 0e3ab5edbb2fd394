import { command } from "../../../foundation/cli/command.ts";
import { detectLate, lateLines } from "../../engine/detect-late.ts";
import { readingSettings } from "../../engine/engine-settings.ts";
import {
  explained,
  jsonFlag,
  periodFlag,
  readPeriod,
  report,
  withEngine,
  withReporting,
} from "./command-support.ts";

/** `engine detect-late --period`: the events that arrived after the finalized run read the month. */
export const detectLateCommand = command({
  name: "detect-late",
  description: "list the events received after the finalized run read the month (reads and changes nothing)",
  args: { ...periodFlag, ...jsonFlag },
  settings: readingSettings,
  parse: readPeriod,
  run: ({ flags, options, config, io }) =>
    explained(() =>
      withReporting(config.reportingDbUrl.reveal(), (reporting) =>
        withEngine(config.dbUrl.reveal(), async (engine) => {
          const late = await detectLate(engine.sql, reporting, options.period);
          report(io, flags.json, late, () => lateLines(late));
        }),
      ),
    ),
});
