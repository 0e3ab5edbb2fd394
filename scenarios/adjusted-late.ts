import { defineScenario } from "../harness/scenario/scenario.ts";
import adjustments from "./adjustments.ts";

export default defineScenario({
  name: "adjusted-late",
  summary:
    "the adjustments month with one in 20 transitions held back: credit notes carry the discount, surcharge and kickback deltas",
  faults: ["held-back"],
  needs: ["registry"],
  // The same registry as `adjustments`, so that every rule moves when late events move a statement.
  registry: adjustments.registry,
  expect: { comparison: "equal", lateCorrected: true, adjusted: true },
  goldenSeeds: [1],
});
