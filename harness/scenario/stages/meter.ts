import { type RunOutput, readRunOutput } from "../engine-output.ts";
import { meterThroughWorkerKill } from "../worker-kill.ts";
import { engineEnv, engineWorkers, need, seconds } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

function warningsText(run: RunOutput): string {
  const raised = Object.entries(run.codes).filter(([, n]) => n > 0);
  return raised.length === 0 ? "none" : raised.map(([code, n]) => `${code}=${n}`).join(" ");
}

/**
 * `engine run --period`: the regular run. On the clustered stack with two workers, one of which is
 * killed while they meter: the run fails as a whole and is run again (`worker-kill.ts`).
 */
export const meterStage: ReportedStage = {
  name: "meter",
  async run(run) {
    const args = ["run", "--period", run.options.period.name, ...engineWorkers(run)];
    const env = engineEnv(run);
    let killed = "";
    let r: RunOutput;
    if (need(run, "stack").cluster === undefined)
      r = readRunOutput(await run.programs.run("engine", args, env));
    else {
      const { meter, seen } = await meterThroughWorkerKill({
        programs: run.programs,
        args,
        env,
        pick: run.options.seed,
      });
      r = meter;
      run.workerKill = seen;
      killed = `the worker of ${seen.worker || "no shard"} killed while metering, ${seconds(seen.killedAfterMs)} after the run started: run ${seen.runId} ${seen.status} in ${seconds(seen.failedInMs)} (exit ${seen.exit}); run again in ${seconds(seen.rerun.ms)}: `;
    }
    run.meter = r;
    return `${killed}run ${r.runId}: ${r.candidates} candidates, ${r.usageRecords} usage records, ${r.ratedRecords} rated records; warnings: ${warningsText(r)}`;
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
