import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "adjustments",
  summary:
    "registered projects with discounts, surcharges, a partner kickback and infrastructure tenants attributed to their cluster manager",
  faults: [],
  needs: ["registry"],
  expect: { comparison: "equal" },
  goldenSeeds: [],
});
