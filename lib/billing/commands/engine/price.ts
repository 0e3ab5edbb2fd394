import { command } from "../../../foundation/cli/command.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { explainPrice, explanationLines } from "../../engine/price-explain.ts";
import { explained, jsonFlag, periodFlag, readPeriod, report, withEngine } from "./command-support.ts";

/**
 * `engine price --period --explain <resource id> [--run]`: how one resource's lines were priced in a
 * run, with the model the run stored (decision 469: no `--model`, so the answer is what was billed).
 */
export const priceCommand = command({
  name: "price",
  description: "explain how one resource's lines were priced in a period's run (reads and changes nothing)",
  args: {
    ...periodFlag,
    explain: { type: "string", valueHint: "resource-id", required: true, description: "the resource" },
    run: {
      type: "string",
      valueHint: "id",
      description: "the regular run (default: the finalized one, else the latest completed)",
    },
    ...jsonFlag,
  },
  settings: engineDbSettings,
  parse: readPeriod,
  run: ({ flags, options, config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) => {
        const e = await explainPrice(engine.sql, {
          period: options.period.name,
          resourceId: flags.explain,
          runId: flags.run,
        });
        report(io, flags.json, e, () => explanationLines(e));
      }),
    ),
});
