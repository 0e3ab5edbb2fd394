import { type RunOutput, readRunOutput } from "../engine-output.ts";
import { engineEnv, need } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

function warningsText(run: RunOutput): string {
  const raised = Object.entries(run.codes).filter(([, n]) => n > 0);
  return raised.length === 0 ? "none" : raised.map(([code, n]) => `${code}=${n}`).join(" ");
}

/** `engine run --period`: the regular run. */
export const meterStage: ReportedStage = {
  name: "meter",
  async run(run) {
    const args = ["run", "--period", run.options.period.name];
    const r = readRunOutput(await run.programs.run("engine", args, engineEnv(run)));
    run.meter = r;
    return `run ${r.runId}: ${r.candidates} candidates, ${r.usageRecords} usage records, ${r.ratedRecords} rated records; warnings: ${warningsText(r)}`;
  },
};

/** `engine finalize --period --run`: the regular run closes the month. */
export const finalizeStage: ReportedStage = {
  name: "finalize",
  async run(run) {
    const args = ["finalize", "--period", run.options.period.name, "--run", need(run, "meter").runId];
    return (await run.programs.run("engine", args, engineEnv(run))).join("; ");
  },
};
