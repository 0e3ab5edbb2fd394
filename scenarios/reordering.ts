import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "reordering",
  summary: "one in 10 resources has its first transition delivered behind its second: the bill is unchanged",
  faults: ["reordering"],
  needs: [],
  expect: { comparison: "equal" },
  goldenSeeds: [],
});
