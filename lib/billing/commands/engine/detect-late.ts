import { printLines } from "../../../foundation/cli/cli-io.ts";
import { command } from "../../../foundation/cli/command.ts";
import { detectLate } from "../../engine/detect-late.ts";
import { readingSettings } from "../../engine/engine-settings.ts";
import { explained, periodFlag, readPeriod, withEngine, withReporting } from "./command-support.ts";

/** `engine detect-late --period`: the events that arrived after the finalized run read the month. */
export const detectLateCommand = command({
  name: "detect-late",
  description: "List the events received after the finalized run read the month (reads and changes nothing)",
  args: periodFlag,
  settings: readingSettings,
  parse: readPeriod,
  run: ({ options, config, io }) =>
    explained(() =>
      withReporting(config.reportingDbUrl.reveal(), (reporting) =>
        withEngine(config.dbUrl.reveal(), async (engine) =>
          printLines(io.stdout, await detectLate(engine.sql, reporting, options.period)),
        ),
      ),
    ),
});
