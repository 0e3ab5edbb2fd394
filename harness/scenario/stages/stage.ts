import type { StageRunner } from "../month-delivery.ts";
import type { ScenarioRun } from "./run-state.ts";

/** A stage that reports one line: its work returns the line's text; the loop adds its name and time. */
export interface ReportedStage {
  name: string;
  /** Whether this run needs it (absent: every run). */
  needed?(run: ScenarioRun): boolean;
  run(run: ScenarioRun): Promise<string>;
}

/**
 * A stage that reports its own steps through `step` (the month's delivery: generate and deliver,
 * publish and collect, the syncs), or none (the checks).
 */
export interface SteppedStage {
  name: string;
  needed?(run: ScenarioRun): boolean;
  steps(run: ScenarioRun, step: StageRunner): Promise<void>;
}

export type Stage = ReportedStage | SteppedStage;

/** Runs the stages the run needs, in order, each reported line with its time through `step`. */
export async function runStages(
  stages: readonly Stage[],
  run: ScenarioRun,
  step: StageRunner,
): Promise<void> {
  for (const stage of stages) {
    if (stage.needed?.(run) === false) continue;
    if ("steps" in stage) await stage.steps(run, step);
    else
      await step(
        stage.name,
        () => stage.run(run),
        (line) => line,
      );
  }
}
