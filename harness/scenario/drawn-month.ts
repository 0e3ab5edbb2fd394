import type { Month } from "../../lib/billing/simulator/month.ts";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { finalizedOracle } from "./finalized-oracle.ts";
import type { DrawnMonth } from "./scenario.ts";

/** A held event, the members a drawn month reads. */
export interface HeldEvent {
  event_id: string;
  resource_type: string;
  resource_id: string;
}

/**
 * The month a scenario draws its registry and prices from (decisions 546, 548), made of the generated
 * month, its oracle and its held share: by the registry stage from the simulator's files, by the
 * draw's tests from a month generated in memory.
 */
export function drawnMonthOf(options: {
  month: Month;
  oracle: Oracle;
  held: Iterable<HeldEvent>;
  defaultPricing: string;
}): DrawnMonth {
  const { month } = options;
  const held = [...options.held];
  return {
    seed: month.seed,
    oracle: options.oracle,
    tenants: month.tenants.filter((t) => t.kind === "classic").map((t) => t.project_id),
    held: new Set(held.map((e) => `${e.resource_type}/${e.resource_id}`)),
    finalized: finalizedOracle(month, new Set(held.map((e) => e.event_id))),
    attributions: month.tenants.flatMap((t) =>
      t.cluster_manager === null ? [] : [{ manager: t.cluster_manager, tenant: t.project_id }],
    ),
    defaultPricing: options.defaultPricing,
  };
}
