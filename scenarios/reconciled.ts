import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "reconciled",
  summary:
    "a sync against the fake platform API repairs missing-create and books load balancer listeners and pools",
  faults: ["missing-create"],
  needs: ["broker", "reconcile"],
  expect: { comparison: "equal" },
  goldenSeeds: [],
});
