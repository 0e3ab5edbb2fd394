import { RunWarnings, type WarningStats } from "../metering/run-warnings.ts";
import {
  buildStatements,
  type ProjectCost,
  type Statement,
  type StatementOptions,
} from "../statements/build-statements.ts";
import {
  kickbackShares,
  type PartnerSettlement,
  partnerSettlements,
} from "../statements/partner-settlements.ts";
import { ProjectCosts } from "../statements/project-costs.ts";
import { Registry, type RegistryProject, type RegistryRelation } from "../statements/registry.ts";
import {
  type MonthCounts,
  type MonthRows,
  type MonthTally,
  type RatedResource,
  type RateOptions,
  rateMonth,
} from "./rate-month.ts";

/** What a month is computed from (the reader's snapshot): its rows and counters, the registry, the read instant. */
export interface MonthInput extends MonthRows {
  /** The instant the month was read (the reporting database's clock): later arrivals are late. */
  readAt: string;
  projects: readonly RegistryProject[];
  relations: readonly RegistryRelation[];
}

export interface PriceOptions extends RateOptions {
  statements: StatementOptions;
}

export interface RunStats extends WarningStats {
  counts: MonthCounts & { statements: number };
}

/** A month stated: what a run stores once its rows are written. */
export interface PricedMonth {
  statements: Statement[];
  settlements: PartnerSettlement[];
  stats: RunStats;
}

export const emptyTally = (): MonthTally => ({
  warnings: new RunWarnings(),
  counts: { resources: 0, candidates: 0, usage_records: 0, rated_records: 0 },
});

/** What metering and rating a month (or a shard of it) summed: costs per project and bucket, and the tally. */
export interface SummedMonth {
  costs: ProjectCost[];
  tally: MonthTally;
}

/**
 * Meter → rate → costs: each batch of rated resources is yielded as the month is read, for the writer
 * to store their usage records and rated lines, and their lines are summed per project and bucket. A
 * worker of a run spread over processes stops here and stores the sums (decision 470).
 */
export async function* rateAndSum(
  month: MonthRows,
  options: RateOptions,
): AsyncGenerator<RatedResource[], SummedMonth> {
  const tally = emptyTally();
  const costs = new ProjectCosts(options.model.plans);
  for await (const batch of rateMonth(month, options, tally)) {
    for (const { resource, rating } of batch) {
      for (const line of rating.lines) costs.add(resource, line);
    }
    yield batch;
  }
  return { costs: costs.costs(), tally };
}

/**
 * The statement step: the month's costs stated against the registry (attribution, adjustments) and
 * the partner settlement. It needs only the per-project sums, so the costs of every shard of a month
 * summed state it exactly as one process does.
 */
export function stateMonth(
  summed: SummedMonth,
  registry: { projects: readonly RegistryProject[]; relations: readonly RegistryRelation[] },
  options: PriceOptions,
): PricedMonth {
  const { tally } = summed;
  const statements = buildStatements(
    summed.costs,
    new Registry(registry.projects, registry.relations, options.period),
    { ...options.statements, plans: options.model },
    tally.warnings,
  );
  return {
    statements,
    settlements: partnerSettlements(kickbackShares(statements)),
    stats: { ...tally.warnings.stats(), counts: { ...tally.counts, statements: statements.length } },
  };
}

/**
 * A run's pure pipeline: meter → rate → costs → statements (and the partner settlement). It yields
 * each batch of rated resources as the month is read, for the writer to store their usage records and
 * rated lines, sums their lines per project and bucket, and returns the month's statements once the
 * month is read. It holds no connection and writes nothing: it awaits only its input.
 */
export async function* priceMonth(
  input: MonthInput,
  options: PriceOptions,
): AsyncGenerator<RatedResource[], PricedMonth> {
  return stateMonth(yield* rateAndSum(input, options), input, options);
}
