import { printLines } from "../../../foundation/cli/cli-io.ts";
import { command } from "../../../foundation/cli/command.ts";
import { correctionReport, correctPeriod } from "../../engine/correct-period.ts";
import { checkMeteringSettings, correctingSettings } from "../../engine/engine-settings.ts";
import {
  counterSetup,
  explained,
  periodFlag,
  readPeriod,
  withEngine,
  withReporting,
} from "./command-support.ts";

/** `engine correct --period`: late events booked against a finalized month. */
export const correctCommand = command({
  name: "correct",
  description:
    "Meter a finalized month again and store its deltas and credit notes as a correction (late events)",
  args: periodFlag,
  settings: correctingSettings,
  checkSettings: checkMeteringSettings,
  parse: readPeriod,
  run: ({ options, config, io }) =>
    explained(async () => {
      const counters = await counterSetup(config);
      await withReporting(config.reportingDbUrl.reveal(), (reporting) =>
        withEngine(config.dbUrl.reveal(), async (engine) => {
          const result = await correctPeriod({ engine, reporting, counters }, options.period);
          printLines(io.stdout, correctionReport(result, options.period));
        }),
      );
    }),
});
