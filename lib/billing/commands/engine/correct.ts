import { command } from "../../../foundation/cli/command.ts";
import { type CorrectionResult, correctionReport, correctPeriod } from "../../engine/correct-period.ts";
import { checkMeteringSettings, correctingSettings } from "../../engine/engine-settings.ts";
import {
  counterSetup,
  explained,
  jsonFlag,
  periodFlag,
  readPeriodAndWorkers,
  report,
  withEngine,
  withReporting,
  workersFlag,
} from "./command-support.ts";

/** What `correct --json` prints: the correction stored, or that nothing moved. */
function correctionDocument(result: CorrectionResult, period: string) {
  if (result.kind === "no-deltas") return { outcome: "no_deltas", period };
  return {
    outcome: "stored",
    run_id: result.runId,
    kind: "correction",
    corrects_run_id: result.correctsRunId,
    period,
    pricing_model: result.pricingModel,
    stats: result.computed.stats,
  };
}

/** `engine correct --period [--workers N]`: late events booked against a finalized month. */
export const correctCommand = command({
  name: "correct",
  description:
    "meter a finalized month again and store its deltas and credit notes as a correction (late events)",
  args: { ...periodFlag, ...workersFlag, ...jsonFlag },
  settings: correctingSettings,
  checkSettings: checkMeteringSettings,
  parse: readPeriodAndWorkers,
  run: ({ flags, options, config, io }) =>
    explained(async () => {
      const counters = await counterSetup(config);
      await withReporting(config.reportingDbUrl.reveal(), (reporting) =>
        withEngine(config.dbUrl.reveal(), async (engine) => {
          const result = await correctPeriod(
            { engine, reporting, counters, workers: options.workers },
            options.period,
          );
          report(io, flags.json, correctionDocument(result, options.period.name), () =>
            correctionReport(result, options.period),
          );
        }),
      );
    }),
});
