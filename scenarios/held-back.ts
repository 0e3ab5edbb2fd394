import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "held-back",
  summary:
    "one in 20 transitions arrives after the month is finalized: detected late, corrected by credit notes",
  faults: ["held-back"],
  needs: [],
  expect: { comparison: "equal", lateCorrected: true },
  goldenSeeds: [7],
});
