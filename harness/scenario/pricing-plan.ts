import { join } from "node:path";
import YAML from "yaml";
import type { RegistrySnapshot } from "../../lib/billing/compare/registry-snapshot.ts";
import { type ProjectRef, projectByRef } from "./registry-plan.ts";

/**
 * A scenario's own pricing model (docs/scenarios.md#pricing): a model file of the repository, and plans
 * that name the month's projects the way a registry plan does, since a seed draws the projects' ids.
 * The model a run rates with is the file with the plans appended, their projects resolved in the
 * registry as it stands after the registry stage (decision 544).
 */

/** A plan as a scenario declares it: the model's plan terms, its projects by reference. */
export interface PlannedPricingPlan {
  name: string;
  projects: ProjectRef[];
  tiered?: {
    dimension: string;
    mode: "graduated" | "volume";
    tiers: { up_to?: string; price: string }[];
  }[];
  minimums?: { scope: string; amount: string }[];
}

export interface ScenarioPricing {
  /** The model file, relative to the repository's root; it must carry no `plans` of its own. */
  model: string;
  plans: PlannedPricingPlan[];
}

const root = join(import.meta.dir, "../..");

/** The model file's path. */
export const scenarioModelPath = (pricing: ScenarioPricing) => join(root, pricing.model);

/** The plans resolved: per plan, its projects as `<cloud>: [<external id>, …]`. */
export function resolvePlans(
  pricing: ScenarioPricing,
  registry: Pick<RegistrySnapshot, "projects" | "relations">,
  cloud: string,
): Record<string, unknown> {
  const plans: Record<string, unknown> = {};
  for (const { name, projects, ...terms } of pricing.plans) {
    const byCloud: Record<string, string[]> = {};
    for (const ref of projects) {
      const project = projectByRef(registry, cloud, ref);
      byCloud[project.cloud] = [...(byCloud[project.cloud] ?? []), project.external_id];
    }
    plans[name] = { projects: byCloud, ...terms };
  }
  return plans;
}

/** The model's text with the resolved plans appended (a model's members are top level: the file ends with them). */
export function scenarioModelText(modelText: string, plans: Record<string, unknown>): string {
  const body = modelText.endsWith("\n") ? modelText : `${modelText}\n`;
  return `${body}# The scenario's plans, their projects resolved in this month's registry.\n${YAML.stringify({ plans })}`;
}
