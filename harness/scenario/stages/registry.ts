import { writeFileSync } from "node:fs";
import { applyRegistryPlan } from "../registry-plan.ts";
import { need, scenarioCloud } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/** The scenario's registry plan made through the Reporting API, and the registry as it then stands. */
export const registryStage: ReportedStage = {
  name: "registry",
  needed: (run) => run.options.scenario.registry !== undefined,
  async run(run) {
    const stack = need(run, "stack");
    const plan = run.options.scenario.registry;
    if (plan === undefined) throw new Error("the registry stage runs for a scenario with a registry plan");
    const made = await applyRegistryPlan({
      reportingUrl: stack.reportingUrl,
      adminToken: stack.adminToken ?? "",
      cloud: scenarioCloud,
      period: run.options.period,
      plan,
    });
    writeFileSync(run.dirs.registry, `${JSON.stringify(made.snapshot, null, 2)}\n`);
    run.registry = made;
    return `the simulator registered ${made.registered.projects} projects and ${made.registered.relations} infrastructure_tenant relations; ${made.made.projects} virtual projects and ${made.made.relations} relations with ${made.made.adjustments} pricing adjustments made through the Reporting API; the registry as it stands in ${run.dirs.registry}`;
  },
};
