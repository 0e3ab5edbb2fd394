import { explainPrice, explanationLines } from "../../engine/price-explain.ts";
import { engineCommand, jsonFlag, periodFlag, readPeriod, report, runFlag } from "./command-support.ts";

/**
 * `engine price --period --explain <resource id> [--run]`: how one resource's lines were priced in a
 * run, with the model the run stored (decision 469: no `--model`, so the answer is what was billed).
 */
export const priceCommand = engineCommand({
  name: "price",
  description: "explain how one resource's lines were priced in a period's run (reads and changes nothing)",
  args: {
    ...periodFlag,
    explain: { type: "string", valueHint: "resource-id", required: true, description: "the resource" },
    ...runFlag("the regular run (default: the finalized one, else the latest completed)"),
    ...jsonFlag,
  },
  parse: readPeriod,
  work: async (engine, { flags, options, io }) => {
    const e = await explainPrice(engine.sql, {
      period: options.period.name,
      resourceId: flags.explain,
      runId: flags.run,
    });
    report(io, flags.json, e, () => explanationLines(e));
  },
});
