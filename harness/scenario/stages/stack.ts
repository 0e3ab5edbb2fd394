import type { ServiceName } from "../../services/services.ts";
import { startScenarioStack } from "../scenario-stack.ts";
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
    });
    run.stack = stack;
    const started = Object.entries(stack.startMs)
      .map(([name, ms]) => `${serviceLabels[name as ServiceName]} ${seconds(ms ?? 0)}`)
      .join(", ");
    return `${started}; schemas migrated; Reporting API at ${stack.reportingUrl}`;
  },
};
