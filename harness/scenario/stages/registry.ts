import { readFileSync, writeFileSync } from "node:fs";
import { generateTenants } from "../../../lib/billing/simulator/generate-month.ts";
import { applyRegistryPlan } from "../registry-plan.ts";
import type { DrawnMonth } from "../scenario.ts";
import { resourcesOf } from "./late.ts";
import { need, pricingModelPath, type ScenarioRun, scenarioCloud } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/** The month as generated, what a scenario draws its registry and prices from (decision 546). */
export function drawnMonth(run: ScenarioRun): DrawnMonth {
  const { seed, period, tenants } = run.options;
  const generated = need(run, "generated");
  return {
    seed,
    oracle: generated.oracle,
    tenants: generateTenants({ seed, period, cloud: scenarioCloud, scale: { tenants } })
      .filter((t) => t.kind === "classic")
      .map((t) => t.project_id),
    held: resourcesOf(generated.held),
    defaultPricing: readFileSync(pricingModelPath, "utf8"),
  };
}

/** The scenario's registry plan made through the Reporting API, and the registry as it then stands. */
export const registryStage: ReportedStage = {
  name: "registry",
  needed: (run) => run.options.scenario.registry !== undefined,
  async run(run) {
    const stack = need(run, "stack");
    const declared = run.options.scenario.registry;
    if (declared === undefined)
      throw new Error("the registry stage runs for a scenario with a registry plan");
    const plan = typeof declared === "function" ? declared(drawnMonth(run)) : declared;
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
