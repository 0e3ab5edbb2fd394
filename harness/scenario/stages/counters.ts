import { trafficImportSeries } from "../../../lib/billing/traffic/traffic-import.ts";
import { loadSeries } from "../../traffic/load-series.ts";
import { need, scenarioCloud } from "./run-state.ts";
import type { ReportedStage } from "./stage.ts";

/** The oracle's traffic imported into VictoriaMetrics as the counters the engine reads. */
export const countersStage: ReportedStage = {
  name: "counters",
  async run(run) {
    const series = trafficImportSeries(scenarioCloud, need(run, "generated").oracle.traffic);
    await loadSeries(need(run, "stack").vmUrl, series);
    return `${series.length} traffic counters imported into VictoriaMetrics from the oracle's traffic`;
  },
};
