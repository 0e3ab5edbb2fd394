import { command } from "../../../foundation/cli/command.ts";
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import { kickbackReport } from "../../engine/kickback-report.ts";
import { defaultRun, requireRun } from "../../engine/run-lookup.ts";
import { explained, jsonFlag, periodFlag, readPeriod, report, withEngine } from "./command-support.ts";

/** `engine kickbacks --period [--run]`: the kickback report of a period's run, as JSON. */
export const kickbacksCommand = command({
  name: "kickbacks",
  description: "the kickback report of a period's run (JSON with or without --json)",
  args: {
    ...periodFlag,
    run: {
      type: "string",
      valueHint: "id",
      description: "the run (default: the finalized run, else the latest completed)",
    },
    ...jsonFlag,
  },
  settings: engineDbSettings,
  parse: readPeriod,
  run: ({ flags, options, config, io }) =>
    explained(() =>
      withEngine(config.dbUrl.reveal(), async (engine) => {
        const p = options.period;
        const run =
          flags.run === undefined
            ? await defaultRun(engine.sql, p.name)
            : await requireRun(engine.sql, flags.run);
        if (run === null)
          throw new UsageError(`${p.name} has no completed run: run it first with run --period ${p.name}`);
        if (run.period !== p.name)
          throw new UsageError(`run ${run.id} is a run of ${run.period}, not of ${p.name}`);
        // The report is a document either way: --json changes nothing but is accepted like elsewhere.
        report(io, true, await kickbackReport(engine.sql, run), () => []);
      }),
    ),
});
