import { command } from "../../../foundation/cli/command.ts";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { checkMeteringSettings, meteringSettings } from "../../engine/engine-settings.ts";
import { runPeriod, runReport } from "../../engine/run-period.ts";
import { readPricingModel } from "../../pricing/pricing-model.ts";
import {
  counterSetup,
  explained,
  jsonFlag,
  readPeriodAndWorkers,
  readText,
  report,
  withEngine,
  withReporting,
  workersFlag,
} from "./command-support.ts";

/** `engine run --period [--workers N]`: a regular run of an ended month. */
export const runCommand = command({
  name: "run",
  description: "meter, rate and state a month as a regular run",
  args: {
    period: {
      type: "string",
      valueHint: "YYYY-MM",
      required: true,
      description: "the month, YYYY-MM (UTC); it must have ended",
    },
    pricing: {
      type: "string",
      valueHint: "file",
      description: "the pricing model file (default: SVC_ENGINE_PRICING_MODEL)",
    },
    ...workersFlag,
    ...jsonFlag,
  },
  settings: meteringSettings,
  checkSettings: checkMeteringSettings,
  parse: readPeriodAndWorkers,
  run: ({ flags, options, config, io }) =>
    explained(async () => {
      const modelPath = flags.pricing ?? config.pricingModel;
      if (modelPath === undefined) {
        throw new UsageError("name the pricing model: --pricing <file> or SVC_ENGINE_PRICING_MODEL");
      }
      const model = readPricingModel(await readText(modelPath, "the pricing model"));
      const counters = await counterSetup(config);
      await withReporting(config.reportingDbUrl.reveal(), (reporting) =>
        withEngine(config.dbUrl.reveal(), async (engine) => {
          const result = await runPeriod(
            {
              engine,
              reporting,
              counters,
              statements: { relationTypes: config.relationTypes, depth: config.depth },
              workers: options.workers,
            },
            options.period,
            model,
            new Date(),
          );
          const document = {
            run_id: result.runId,
            kind: "regular",
            period: options.period.name,
            pricing_model: model.name,
            read_at: result.readAt,
            stats: result.stats,
          };
          report(io, flags.json, document, () => runReport(result, options.period, model));
        }),
      );
    }),
});
