import type { ServiceName } from "../../services/services.ts";
import type { ClusterStack } from "../cluster-stack.ts";
import { type ScenarioStack, startScenarioStack } from "../scenario-stack.ts";
import { prepareSyncs } from "../sync-stage.ts";
import { serviceLabels } from "../up.ts";
import { scenarioCloud, seconds } from "./run-state.ts";
import type { ReportedStage, SteppedStage } from "./stage.ts";

/** The clouds files the Reporting API starts with when the scenario syncs (unreported: a few ms). */
export const syncFilesStage: SteppedStage = {
  name: "sync files",
  needed: (run) => run.options.scenario.needs.includes("reconcile"),
  async steps(run) {
    run.syncSetup = await prepareSyncs(run.options.dir, scenarioCloud);
  },
};

/** PostgreSQL, VictoriaMetrics (and RabbitMQ), the schemas, the credentials, the Reporting API (and the collector). */
export const stackStage: ReportedStage = {
  name: "stack",
  async run(run) {
    const { options } = run;
    const stack = await startScenarioStack({
      programs: run.programs,
      cloud: scenarioCloud,
      broker: options.via === "broker",
      admin: options.scenario.registry !== undefined,
      env: options.env,
      reportingEnv: run.syncSetup?.reportingEnv,
      cluster: options.scenario.cluster === true,
    });
    run.stack = stack;
    if (stack.cluster !== undefined) return clusterStackLine(stack.cluster, stack);
    const started = Object.entries(stack.startMs)
      .map(([name, ms]) => `${serviceLabels[name as ServiceName]} ${seconds(ms ?? 0)}`)
      .join(", ");
    return `${started}; schemas migrated; Reporting API at ${stack.reportingUrl}`;
  },
};

/** What the clustered stack is made of, with each part's start. */
function clusterStackLine(cluster: ClusterStack, stack: ScenarioStack): string {
  const { startMs } = cluster;
  const vm = stack.startMs.victoriaMetrics ?? 0;
  return `Patroni with ${cluster.postgres.members.length} PostgreSQL nodes on etcd behind HAProxy ${seconds(startMs.postgres)}, RabbitMQ cluster of ${cluster.rabbitmq.nodes.length} nodes mirroring the queue ${seconds(startMs.rabbitmq)}, victoria-metrics ${seconds(vm)}; schemas migrated, ${cluster.replicas.length} Reporting APIs behind HAProxy at ${cluster.reportingUrl}, ${cluster.collectors.length} collectors (${seconds(startMs.programs)})`;
}
