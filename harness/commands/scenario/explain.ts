import { resolve } from "node:path";
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
    printLines(io.stdout, explainResource(resolve(io.cwd, flags.out), flags.resource, pricingModelPath));
  },
});
