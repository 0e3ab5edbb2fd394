import { drawMoneyEdges } from "../harness/scenario/edges-plan.ts";
import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "money-edges",
  summary:
    "prices and a registry drawn from the month so that every money edge occurs: kickbacks to a non-partner, a walk past its depth, partial-month relations, unpriced types and states, half-cent ties, and a held share whose correction moves surcharges, discounts and kickbacks",
  faults: ["held-back"],
  needs: ["registry"],
  // Drawn from the seed and the generated month (decision 546): the same seed draws the same month.
  registry: (month) => drawMoneyEdges(month).registry,
  pricing: (month) => drawMoneyEdges(month).pricingText,
  expect: { comparison: "equal", lateCorrected: true, adjusted: true, edges: true },
  goldenSeeds: [1, 2, 3],
});
