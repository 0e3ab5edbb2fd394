import { type Oracle, oracleFormat } from "../../lib/billing/simulator/oracle.ts";

/**
 * An oracle of seed 1 for `cloud-1` over October 2026 holding the resources given, with the faults
 * named and no counts or traffic: the month the comparison tests state their cases in.
 */
export function octoberOracle(resources: Oracle["resources"], faults: Oracle["faults"] = []): Oracle {
  return {
    format: oracleFormat,
    cloud: "cloud-1",
    seed: 1,
    period_from: "2026-10-01T00:00:00.000Z",
    period_to: "2026-11-01T00:00:00.000Z",
    resources,
    counts: [],
    faults,
    traffic: [],
  };
}
