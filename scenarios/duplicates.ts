import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "duplicates",
  summary:
    "one in 20 transitions published twice under one message id: ingest stores one, the bill is unchanged",
  faults: ["duplicates"],
  needs: [],
  expect: { comparison: "equal", duplicatesDeduplicated: true },
  goldenSeeds: [],
});
