import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { kickbackReport } from "../../engine/kickback-report.ts";
import { defaultRun, requireRun } from "../../engine/run-lookup.ts";
import { engineCommand, jsonFlag, periodFlag, readPeriod, report, runFlag } from "./command-support.ts";

/** `engine kickbacks --period [--run]`: the kickback report of a period's run, as JSON. */
export const kickbacksCommand = engineCommand({
  name: "kickbacks",
  description: "the kickback report of a period's run (JSON with or without --json)",
  args: {
    ...periodFlag,
    ...runFlag("the run (default: the finalized run, else the latest completed)"),
    ...jsonFlag,
  },
  parse: readPeriod,
  work: async (engine, { flags, options, io }) => {
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
  },
});
