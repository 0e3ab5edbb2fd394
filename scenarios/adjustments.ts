import { defineScenario } from "../harness/scenario/scenario.ts";
import { group, partner, resellerAndGroup } from "./reseller-and-group.ts";

export default defineScenario({
  name: "adjustments",
  summary:
    "registered projects with discounts, surcharges, a partner kickback and infrastructure tenants attributed to their cluster manager",
  faults: [],
  needs: ["registry"],
  // The simulator registers the tenants, alpha and beta, and each manager's infrastructure tenant;
  // beta stays unadjusted, so one attribution is seen bare (decision 524).
  registry: {
    virtual: resellerAndGroup,
    relations: [
      {
        from: { tenant: 0 },
        to: partner,
        type: "managed_by",
        adjustments: [
          { type: "discount", rate: "0.1", scope: "all", description: "reseller discount" },
          { type: "kickback", rate: "0.05", scope: "all", description: "reseller commission" },
        ],
      },
      {
        from: { tenant: 1 },
        to: group,
        type: "member_of",
        adjustments: [
          { type: "surcharge", rate: "0.15", scope: "platform_a.volume", description: "premium storage" },
          { type: "discount", rate: "0.2", scope: "platform_a.instance", description: "committed use" },
        ],
      },
      {
        from: { tenant: 2 },
        to: group,
        type: "member_of",
        adjustments: [{ type: "project_discount", rate: "0.075", scope: "all" }],
      },
      {
        // Reached from tenant 0 and alpha through northwind: the walk's second level.
        from: partner,
        to: group,
        type: "member_of",
        adjustments: [{ type: "project_discount", rate: "0.02", scope: "platform_a" }],
      },
      {
        // On alpha's statement, which carries its infrastructure tenant's costs.
        from: { manager: "alpha" },
        to: partner,
        type: "managed_by",
        adjustments: [
          { type: "discount", rate: "0.05", scope: "all" },
          { type: "kickback", rate: "0.1", scope: "platform_a.instance", description: "cluster commission" },
        ],
      },
    ],
  },
  expect: { comparison: "equal", adjusted: true },
  goldenSeeds: [1],
});
