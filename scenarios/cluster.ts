import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "cluster",
  summary:
    "the held-back month on a cluster (Patroni, three RabbitMQ nodes, HAProxy, two APIs, two collectors) through four kills: nothing lost or doubled",
  faults: ["held-back"],
  cluster: true,
  // cmd/cluster-faults.test.ts proves each fault in the suite; this month adds 80-100 s (decision 531).
  inCiPass: false,
  needs: ["broker", "correct"],
  expect: { comparison: "equal", lateCorrected: true },
  goldenSeeds: [],
});
