import type { ExtraType } from "../../lib/billing/simulator/extra-types.ts";
import type { FaultSwitch } from "../../lib/billing/simulator/fault-switch.ts";
import type { NovaFormat } from "../../lib/billing/simulator/nova-format.ts";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import type { ScenarioPricing } from "./pricing-plan.ts";
import type { RegistryPlan } from "./registry-plan.ts";

/**
 * The month a scenario's registry and prices may be drawn from (money-edges, decision 546): its seed,
 * what the simulator generated, and the default pricing model a drawn one departs from.
 */
export interface DrawnMonth {
  seed: number;
  oracle: Oracle;
  /** The classic tenants' project ids, in the order the simulator drew them. */
  tenants: readonly string[];
  /** `<type>/<id>` of every resource with a held event (the correction may move their bills). */
  held: ReadonlySet<string>;
  /** The oracle of the month as the finalized run reads it, without the held share (decision 548). */
  finalized: Oracle;
  /** Each infrastructure tenant and the cluster manager it is attributed to. */
  attributions: readonly { manager: string; tenant: string }[];
  /** The text of `pricing/default.yaml`. */
  defaultPricing: string;
}

/**
 * What a scenario needs beyond the path that works with every program built so far (the simulator's
 * files posted to the ingest API, then the engine and `simulator compare`). A scenario that needs a
 * program not built yet is listed with what it waits for and refuses to run (exit 2).
 */
export type Capability =
  /** `engine correct`, credit notes and the export of a correction (engine part 2). */
  | "correct"
  /** the simulator publishing to RabbitMQ and the collector carrying the month to the Reporting API. */
  | "broker"
  /** the project registry and relations (Reporting API part 2) and `simulator run --register-projects`. */
  | "registry"
  /** a reconciliation sync against the simulator's fake platform API. */
  | "reconcile";

/** What the comparison against the oracle must show. */
export type ComparisonExpectation =
  /** no resource differs */
  | "equal"
  /** exactly the resources the oracle marks `missing-create` differ, each marked, and the engine warns once per history it read */
  | "marked-missing-create";

/** What must hold at the end of a scenario, beyond what every scenario checks (see `checks.ts`). */
export interface Expectations {
  comparison: ComparisonExpectation;
  /** The ingest API deduplicated at least one repeated event (the `duplicates` switch). */
  duplicatesDeduplicated?: boolean;
  /**
   * The held share arrives after the month is finalized: `detect-late` names every resource with a held
   * event, the finalized bill differs from the oracle on none other, and (once `correct` is built) a
   * correction books the difference as credit notes and a second correction finds `no deltas`.
   */
  lateCorrected?: boolean;
  /**
   * The registry plays (decision 522): the statements and kickback settlements equal the oracle's as
   * the registry attributes and adjusts them, every adjustment type the plan declares bills a line,
   * each cluster manager's statement carries its infrastructure tenant, and `engine kickbacks` reports
   * what the export holds.
   */
  adjusted?: boolean;
  /**
   * Every money edge of issue 29 occurred and was billed as the oracle bills it (`edges-checks.ts`):
   * non-partner kickbacks dropped, the walk past its depth, partial-month relations, unpriced types and
   * states, half-cent ties, and adjustments a correction moves. Each counted, none may be zero.
   */
  edges?: boolean;
  /**
   * The scenario's pricing model plays (`pricing-checks.ts`): the oracle's bill met prices chosen by
   * attribute (named too), a flavor priced whole, intervals cut by a price change, tier lines past a
   * bound, top-ups and minimums met, and a credit note moved a statement under a plan.
   */
  priced?: boolean;
}

/** One declared month: which switches, what it needs, what must hold. */
export interface Scenario {
  /** Its name on the command line, `bun scenario <name>`: lower case, digits and dashes. */
  name: string;
  /** One line for `bun scenario list`. */
  summary: string;
  faults: readonly FaultSwitch[];
  /**
   * The runner's outage stage while the month is published (needs the broker): the Reporting API
   * stopped and the collector killed mid-month, then both started again (`outage.ts`).
   */
  outage?: boolean;
  /**
   * The clustered stack (`cluster-stack.ts`, needs the broker): Patroni, a RabbitMQ cluster, two
   * Reporting APIs behind HAProxy, two collectors; while the month is published the runner kills the
   * PostgreSQL primary, the queue's node, one API and one collector at seeded moments (`cluster-month.ts`).
   */
  cluster?: boolean;
  /**
   * `false` leaves it out of CI's one pass (`scenario all --golden-seeds`): a month whose proof the
   * suite's tests already give, too slow for CI's 15-minute aim. `scenario all` without the flag runs it.
   */
  inCiPass?: boolean;
  /**
   * Register the month's projects (`simulator run --register-projects`), then make these projects and
   * relations through the Reporting API before the month is metered (needs `registry`).
   */
  registry?: RegistryPlan | ((month: DrawnMonth) => RegistryPlan);
  /**
   * Rate with this model instead of `pricing/default.yaml`, its plans naming the month's projects as
   * the registry plan does (needs `registry`): written to `month/pricing.yaml` once the registry stands.
   * Or the model's YAML text drawn from the generated month (money-edges, decision 546), written there
   * the same way.
   */
  pricing?: ScenarioPricing | ((month: DrawnMonth) => string);
  /** Programs it needs beyond the file path (empty: runs today). */
  needs: readonly Capability[];
  expect: Expectations;
  /** Seeds whose statement totals are kept in `fixtures/golden/<name>/seed-<n>.json` (may be empty). */
  goldenSeeds: readonly number[];
  /**
   * The scenario whose golden months this one's totals must equal, for a month that must bill exactly
   * as another does (nova sending both formats bills as the legacy month). It reads them and never
   * writes them. Its own name when absent.
   */
  goldenOf?: string;
  /** What the simulated cloud sends beside the default month (`simulator run` flags). */
  simulator?: {
    /** `--nova-format` (decision 287): legacy when absent. */
    novaFormat?: NovaFormat;
    /** `--extra-types` (decision 288): none when absent. */
    extraTypes?: readonly ExtraType[];
  };
}

const namePattern = /^[a-z][a-z0-9-]{0,40}$/;

/** Declares a scenario; refuses a name the command line could not carry. */
export function defineScenario(scenario: Scenario): Scenario {
  if (!namePattern.test(scenario.name))
    throw new Error(
      `a scenario name is lower case letters, digits and dashes: ${JSON.stringify(scenario.name)}`,
    );
  return scenario;
}
