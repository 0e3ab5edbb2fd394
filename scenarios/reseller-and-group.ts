import type { ProjectRef, RegistryPlan } from "../harness/scenario/registry-plan.ts";

/**
 * The two virtual projects the adjusted scenarios register (`adjustments`, `pricing`): a reseller that
 * manages tenants and takes a commission, and an enterprise agreement that tenants are members of.
 * One declaration, so that both scenarios bill the same parties under the same names.
 */
export const partner: ProjectRef = { virtual: "partner/northwind" };
export const group: ProjectRef = { virtual: "meta/enterprise" };

export const resellerAndGroup: RegistryPlan["virtual"] = [
  { platform: "partner", external_id: "northwind", name: "Northwind, a reseller" },
  { platform: "meta", external_id: "enterprise", name: "the enterprise agreement" },
];
