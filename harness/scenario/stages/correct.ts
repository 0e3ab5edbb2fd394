import { readCorrectionOutput } from "../engine-output.ts";
import { engineEnv, engineWorkers, need } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/**
 * `engine correct`, then `engine finalize --run` of the correction, then `engine correct` again, which
 * must find no deltas.
 */
export const correctStage: ReportedStage = {
  name: "correct",
  needed: (run) => need(run, "generated").held.length > 0 && run.options.capabilities.has("correct"),
  async run(run) {
    const env = engineEnv(run);
    const period = run.options.period.name;
    const correct = () =>
      run.programs.run("engine", ["correct", "--period", period, ...engineWorkers(run)], env);
    const output = readCorrectionOutput(await correct());
    if (output === null) {
      run.correction = { output, again: null };
      return "no deltas: the finalized numbers stand";
    }
    await run.programs.run("engine", ["finalize", "--period", period, "--run", output.runId], env);
    const again = (await correct()).join("; ");
    run.correction = { output, again };
    return `run ${output.runId}: ${output.deltas} deltas and ${output.adjustmentDeltas} adjustment deltas in ${output.creditNotes} credit notes, finalized; correct again: ${again}`;
  },
};
