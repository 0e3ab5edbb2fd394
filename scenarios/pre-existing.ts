import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "pre-existing",
  summary: "instances created before the month arrive first, in a burst: billed from the period start",
  faults: ["pre-existing"],
  needs: [],
  expect: { comparison: "equal" },
  goldenSeeds: [],
});
