import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { printLines } from "../../../lib/foundation/cli/cli-io.ts";
import { command } from "../../../lib/foundation/cli/command.ts";
import { explainResource } from "../../scenario/explain-resource.ts";
import { pricingModelPath } from "../../scenario/run-scenario.ts";

/** `bun scenario explain --out DIR --resource ID`: why one resource of a kept month bills what it does. */
export const explainCommand = command({
  name: "explain",
  description:
    "show one resource of a month kept with --out: its events, the engine's intervals beside the oracle's, its rated lines beside the oracle's",
  args: {
    out: {
      type: "string",
      valueHint: "dir",
      required: true,
      description: "the directory a scenario run kept (--out)",
    },
    resource: {
      type: "string",
      valueHint: "id",
      required: true,
      description: "the resource id, or <type>/<id>",
    },
  },
  run: ({ flags, io }) => {
    const dir = resolve(io.cwd, flags.out);
    // A month that rated with a model of its scenario's own kept it beside its files (decision 544).
    const own = join(dir, "month", "pricing.yaml");
    printLines(io.stdout, explainResource(dir, flags.resource, existsSync(own) ? own : pricingModelPath));
  },
});
