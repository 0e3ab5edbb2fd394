import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "golden",
  summary: "a month without faults: the bill equals the oracle, statement totals equal the golden fixtures",
  faults: [],
  needs: [],
  expect: { comparison: "equal" },
  goldenSeeds: [1, 2, 3],
});
