import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "nova-both",
  summary:
    "nova sends every instance transition as legacy and versioned twins: each is booked once, the bill equals the legacy month's golden totals",
  faults: [],
  // The collector's memory of transitions is what books each twin once: the month goes through it.
  needs: ["broker"],
  expect: { comparison: "equal" },
  goldenSeeds: [1, 2, 3],
  goldenOf: "golden",
  simulator: { novaFormat: "both" },
});
