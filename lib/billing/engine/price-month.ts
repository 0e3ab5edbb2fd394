import { RunWarnings, type WarningStats } from "../metering/run-warnings.ts";
import { buildStatements, type Statement, type StatementOptions } from "../statements/build-statements.ts";
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
  const tally = emptyTally();
  const costs = new ProjectCosts(options.model.plans);
  for await (const batch of rateMonth(input, options, tally)) {
    for (const { resource, rating } of batch) {
      for (const line of rating.lines) costs.add(resource, line);
    }
    yield batch;
  }
  const registry = new Registry(input.projects, input.relations, options.period);
  const statements = buildStatements(
    costs.costs(),
    registry,
    { ...options.statements, plans: options.model },
    tally.warnings,
  );
  return {
    statements,
    settlements: partnerSettlements(kickbackShares(statements)),
    stats: { ...tally.warnings.stats(), counts: { ...tally.counts, statements: statements.length } },
  };
}
