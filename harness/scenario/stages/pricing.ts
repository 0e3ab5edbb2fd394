import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { resolvePlans, scenarioModelPath, scenarioModelText } from "../pricing-plan.ts";
import { drawnMonth } from "./registry.ts";
import { need, scenarioCloud } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/**
 * The scenario's own pricing model written for the run (decision 544): its file with its plans, their
 * projects resolved in the registry the registry stage made; or the model drawn from the generated
 * month (decision 546). The engine and `compare` rate with it.
 */
export const pricingStage: ReportedStage = {
  name: "pricing",
  needed: (run) => run.options.scenario.pricing !== undefined,
  async run(run) {
    const pricing = run.options.scenario.pricing;
    if (pricing === undefined) throw new Error("the pricing stage runs for a scenario with a pricing model");
    const path = join(run.dirs.month, "pricing.yaml");
    run.pricingModel = path;
    if (typeof pricing === "function") {
      writeFileSync(path, pricing(drawnMonth(run)));
      return `the pricing model drawn for the month in ${path}`;
    }
    const plans = resolvePlans(pricing, need(run, "registry").snapshot, scenarioCloud);
    writeFileSync(path, scenarioModelText(readFileSync(scenarioModelPath(pricing), "utf8"), plans));
    return `${pricing.model} with ${pricing.plans.length} plans (${Object.keys(plans).join(", ")}) for this month's projects in ${path}`;
  },
};
