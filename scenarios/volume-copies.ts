import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "volume-copies",
  summary:
    "cinder snapshots and backups beside the volumes, each a resource of its own: the bill equals the oracle, and a sync against the fake platform API finds them as booked",
  faults: ["missing-create"],
  needs: ["broker", "reconcile"],
  expect: { comparison: "equal" },
  goldenSeeds: [],
  simulator: { extraTypes: ["volume_snapshot", "volume_backup"] },
});
