import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "refused-shapes",
  summary:
    "oversized, truncated and versioned twins on the bus: none reaches the history, the bill is unchanged",
  faults: ["refused-shapes"],
  needs: [],
  expect: { comparison: "equal" },
  goldenSeeds: [],
});
