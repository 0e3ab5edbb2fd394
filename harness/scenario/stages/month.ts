import { busDelivery, fileDelivery } from "../month-delivery.ts";
import { gardenCloud } from "../registry-plan.ts";
import type { Scenario } from "../scenario.ts";
import { syncDrive } from "../sync-stage.ts";
import { need, type ScenarioRun, scenarioCloud } from "./run-state.ts";
import type { SteppedStage } from "./stage.ts";

/** The `simulator run` flags of what the scenario's cloud sends beside the default month. */
function simulatorShapeArgs(scenario: Scenario): string[] {
  const { novaFormat, extraTypes } = scenario.simulator ?? {};
  return [
    ...(novaFormat === undefined ? [] : ["--nova-format", novaFormat]),
    ...(extraTypes === undefined || extraTypes.length === 0 ? [] : ["--extra-types", extraTypes.join(",")]),
  ];
}

/** `simulator run` as the scenario asks it, but `--out` (the delivery adds it). */
function simulatorArgs(run: ScenarioRun): string[] {
  const { scenario, seed, period, tenants } = run.options;
  return [
    "run",
    "--period",
    period.name,
    "--seed",
    String(seed),
    "--tenants",
    String(tenants),
    ...(scenario.faults.length > 0 ? ["--faults", scenario.faults.join(",")] : []),
    ...(scenario.registry === undefined ? [] : ["--register-projects"]),
    ...simulatorShapeArgs(scenario),
  ];
}

/**
 * The month generated and delivered: on the file path `generate` and `deliver`; on the broker path
 * `publish` and `collect` (or `outage` and `collect`), with the sync stages while it is published.
 */
export const monthStage: SteppedStage = {
  name: "month",
  async steps(run, step) {
    const stack = need(run, "stack");
    const { options } = run;
    if (run.syncSetup !== undefined && stack.broker !== undefined) {
      run.drive = syncDrive({
        setup: run.syncSetup,
        stack,
        collector: stack.broker.collector,
        cloud: scenarioCloud,
        monthDir: run.dirs.month,
        period: options.period,
      });
    }
    const simulatorEnv: Record<string, string> =
      stack.adminToken === undefined
        ? {}
        : {
            SVC_SIM_REPORTING_URL: stack.reportingUrl,
            SVC_SIM_REPORTING_INSECURE: "true",
            SVC_SIM_API_TOKEN: stack.adminToken,
            SVC_SIM_GARDEN_CLOUD: gardenCloud,
          };
    run.delivery = (options.via === "broker" ? busDelivery : fileDelivery)({
      programs: run.programs,
      stack,
      cloud: scenarioCloud,
      simulatorArgs: simulatorArgs(run),
      simulatorEnv,
      monthDir: run.dirs.month,
      dropEvent: options.dropEvent,
      holdsBack: options.scenario.faults.includes("held-back"),
      outage: options.scenario.outage === true,
      ...(run.drive === undefined ? {} : { drive: run.drive }),
      period: options.period,
    });
    run.generated = await run.delivery.month(step);
  },
};

/** A held share delivered after the month is finalized: `release`. */
export const releaseStage: SteppedStage = {
  name: "release",
  needed: (run) => need(run, "generated").held.length > 0,
  async steps(run, step) {
    await need(run, "delivery").held(step, need(run, "generated"));
  },
};
