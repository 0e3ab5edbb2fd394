import type { OracleRegistryInput } from "../../lib/billing/simulator/oracle-bill/oracle-registry.ts";
import { compare } from "../../lib/foundation/collections/compare.ts";
import type { JsonObject } from "../../lib/foundation/json/json-value.ts";
import { adjustmentWalk, gardenCloud, type ProjectRef, type RegistryPlan } from "./registry-plan.ts";
import type { DrawnMonth } from "./scenario.ts";

/**
 * The registry a plan would make of a drawn month, as the Reporting API would list it, for the
 * oracle to state the month against before anything runs (decision 548): the month's projects, the
 * two cluster managers and their attributions, the plan's virtual projects and relations. Ids are made
 * up (`p-`, `m-`, `v-`, `r-`): the money-edges plan never lets the order of relation ids move a cent.
 */
export function plannedRegistry(month: DrawnMonth, plan: RegistryPlan): OracleRegistryInput {
  const cloud = month.oracle.cloud;
  const from = month.oracle.period_from;
  const projects = [
    ...[...new Set(month.oracle.resources.flatMap((r) => r.intervals.map((i) => i.project_id)))].map((p) => ({
      id: `p-${p}`,
      platform: "platform_a",
      cloud,
      external_id: p,
    })),
    ...["alpha", "beta"].map((m) => ({
      id: `m-${m}`,
      platform: "gardener",
      cloud: gardenCloud,
      external_id: m,
    })),
    ...plan.virtual.map((x) => ({
      id: `v-${x.platform}/${x.external_id}`,
      platform: x.platform,
      cloud: x.platform,
      external_id: x.external_id,
    })),
  ];
  const id = (ref: ProjectRef): string =>
    "project" in ref
      ? `p-${ref.project}`
      : "manager" in ref
        ? `m-${ref.manager}`
        : "virtual" in ref
          ? `v-${ref.virtual}`
          : `p-${[...month.tenants].sort(compare)[ref.tenant] ?? ""}`;
  const relations = [
    ...month.attributions.map((a, i) => ({
      id: `r-infra-${i}`,
      source_id: `m-${a.manager}`,
      target_id: `p-${a.tenant}`,
      relation_type: "infrastructure_tenant",
      metadata: {},
      valid_from: from,
      valid_to: null,
    })),
    ...plan.relations.map((r, i) => ({
      id: `r-${String(i).padStart(3, "0")}`,
      source_id: id(r.from),
      target_id: id(r.to),
      relation_type: r.type,
      metadata: (r.adjustments.length === 0
        ? {}
        : { pricing_adjustments: r.adjustments.map((a) => ({ ...a })) }) as JsonObject,
      valid_from: r.validFrom ?? from,
      valid_to: r.validTo ?? null,
    })),
  ];
  return {
    projects,
    relations,
    adjustment_relation_types: [...adjustmentWalk.relationTypes],
    adjustment_depth: adjustmentWalk.depth,
  };
}
