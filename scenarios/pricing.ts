import { defineScenario } from "../harness/scenario/scenario.ts";
import { group, partner, resellerAndGroup } from "./reseller-and-group.ts";

/**
 * Bounds low enough that every seed's tiered statements pass them (a classic tenant uses some 600 to
 * 50,000 vCPU-hours and 15,000 to 1,200,000 volume GiB-hours a month; an infrastructure tenant some
 * 40,000 vCPU-hours), minimums on either side of what a tenant spends (some 170 to 1,500 a month).
 */
export default defineScenario({
  name: "pricing",
  summary:
    "prices by flavor, volume type, image format and load balancer flavor, a price change mid-month, tiered and committed projects under plans, adjustments after them, one in 20 transitions held back",
  faults: ["held-back"],
  needs: ["registry"],
  registry: {
    virtual: resellerAndGroup,
    relations: [
      {
        // A kickback on what a tiered project pays: owed after the tier lines.
        from: { tenant: 0 },
        to: partner,
        type: "managed_by",
        adjustments: [{ type: "kickback", rate: "0.05", scope: "platform_a.instance" }],
      },
      {
        // A discount applies to a top-up as to usage (decision 461).
        from: { tenant: 2 },
        to: group,
        type: "member_of",
        adjustments: [{ type: "discount", rate: "0.1", scope: "all", description: "committed use" }],
      },
    ],
  },
  pricing: {
    model: "pricing/scenario-pricing.yaml",
    plans: [
      {
        name: "tiered-compute",
        projects: [{ tenant: 0 }],
        tiered: [
          {
            dimension: "platform_a.instance.vcpus",
            mode: "graduated",
            tiers: [
              { up_to: "500", price: "0.0125" },
              { up_to: "2000", price: "0.0110" },
              { price: "0.0095" },
            ],
          },
          {
            dimension: "platform_a.instance.egress_gb",
            mode: "graduated",
            tiers: [{ up_to: "100", price: "0.05" }, { price: "0.04" }],
          },
        ],
      },
      {
        name: "bulk-storage",
        projects: [{ tenant: 1 }],
        tiered: [
          {
            dimension: "platform_a.volume.size_gb",
            mode: "volume",
            tiers: [{ up_to: "10000", price: "0.00012" }, { price: "0.00009" }],
          },
        ],
      },
      {
        // On a cluster manager's statement: its infrastructure tenant's usage counts.
        name: "cluster",
        projects: [{ manager: "alpha" }],
        tiered: [
          {
            dimension: "platform_a.instance.vcpus",
            mode: "volume",
            tiers: [
              { up_to: "5000", price: "0.0125" },
              { up_to: "20000", price: "0.0105" },
              { price: "0.0090" },
            ],
          },
        ],
      },
      {
        name: "committed",
        projects: [{ tenant: 2 }],
        minimums: [
          { scope: "platform_a.instance", amount: "1800.00" },
          { scope: "platform_a", amount: "2500.00" },
        ],
      },
      {
        name: "committed-low",
        projects: [{ tenant: 3 }],
        minimums: [{ scope: "platform_a", amount: "100.00" }],
      },
    ],
  },
  expect: { comparison: "equal", lateCorrected: true, adjusted: true, priced: true },
  goldenSeeds: [1, 2, 3],
});
