import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "outage",
  summary:
    "the collector killed and the Reporting API stopped mid-month: nothing is lost, the bill equals the oracle",
  faults: [],
  outage: true,
  needs: ["broker"],
  expect: { comparison: "equal" },
  goldenSeeds: [],
});
