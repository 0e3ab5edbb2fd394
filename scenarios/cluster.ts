import { defineScenario } from "../harness/scenario/scenario.ts";

export default defineScenario({
  name: "cluster",
  summary:
    "the held-back month on a cluster (Patroni, three RabbitMQ nodes, HAProxy, two APIs, two collectors) through four kills: nothing lost or doubled",
  faults: ["held-back"],
  cluster: true,
  // cmd/cluster-faults.test.ts proves each fault on its own (tagged `cluster`, decision 38); this month
  // adds 3-5 min (decisions 531, 532).
  inCiPass: false,
  needs: ["broker", "correct"],
  expect: { comparison: "equal", lateCorrected: true },
  goldenSeeds: [],
});
