import { readFileSync } from "node:fs";
import { join } from "node:path";
import { engineEnv, need } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/** `engine kickbacks --period --run`, beside the export's `kickbacks.json`. */
export const kickbacksStage: ReportedStage = {
  name: "kickbacks",
  needed: (run) => run.registry !== undefined,
  async run(run) {
    const args = ["kickbacks", "--period", run.options.period.name, "--run", need(run, "meter").runId];
    const reported = JSON.parse(
      (await run.programs.run("engine", args, engineEnv(run))).join("\n"),
    ) as unknown;
    const exported = JSON.parse(readFileSync(join(run.dirs.finalized, "kickbacks.json"), "utf8")) as unknown;
    run.kickbacks = { reported, exported };
    return `engine kickbacks: ${(reported as { beneficiaries?: unknown[] }).beneficiaries?.length ?? 0} beneficiaries`;
  },
};
