import { readFileSync, writeFileSync } from "node:fs";
import { generateMonth } from "../../../lib/billing/simulator/generate-month.ts";
import { drawnMonthOf, type HeldEvent } from "../drawn-month.ts";
import { applyRegistryPlan } from "../registry-plan.ts";
import type { DrawnMonth } from "../scenario.ts";
import { need, pricingModelPath, type ScenarioRun, scenarioCloud } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/**
 * The month as generated, what a scenario draws its registry and prices from (decisions 546, 548): the
 * simulator's month generated again here (a pure function of its seed, period and shape) for the
 * finalized run's reading of it.
 */
export function drawnMonth(run: ScenarioRun): DrawnMonth {
  const { seed, period, tenants, scenario } = run.options;
  const generated = need(run, "generated");
  const extraTypes = scenario.simulator?.extraTypes;
  return drawnMonthOf({
    month: generateMonth({
      seed,
      period,
      cloud: scenarioCloud,
      scale: { tenants },
      ...(extraTypes === undefined ? {} : { extraTypes }),
    }),
    oracle: generated.oracle,
    held: generated.held.map((line) => JSON.parse(line) as HeldEvent),
    defaultPricing: readFileSync(pricingModelPath, "utf8"),
  });
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
