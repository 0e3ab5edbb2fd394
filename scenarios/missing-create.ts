import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "missing-create",
  summary: "pre-month transitions never arrive: exactly the marked resources differ, each warned once",
  faults: ["missing-create"],
  needs: [],
  expect: { comparison: "marked-missing-create" },
  goldenSeeds: [],
});
