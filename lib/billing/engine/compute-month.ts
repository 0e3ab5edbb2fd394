import type { Sql, TransactionSql } from "postgres";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { type Decimal, formatMoney, formatQuantity, formatRate } from "../../foundation/money/decimal.ts";
import { copyLeadBytes } from "../../foundation/postgres/copy-text-bytes.ts";
import type { Period } from "../../foundation/time/period.ts";
import { RunWarnings, type WarningStats } from "../metering/run-warnings.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import { buildStatements, type Statement, type StatementOptions } from "../statements/build-statements.ts";
import { kickbackShares } from "../statements/partner-settlements.ts";
import { ProjectCosts } from "../statements/project-costs.ts";
import { Registry } from "../statements/registry.ts";
import { type CounterSetup, type MonthCounts, rateMonth } from "./rate-month.ts";
import { withMonthSnapshot } from "./reporting-source.ts";
import { CopyQueue, CopyWriter } from "./store/copy-rows.ts";
import { ratedLinesCopy, usageCopy } from "./store/run-rows.ts";
import { writeSettlements, writeStatements } from "./store/statement-rows.ts";

export interface ComputeOptions {
  reporting: Sql;
  period: Period;
  model: PricingModel;
  counters: CounterSetup | null;
  statements: StatementOptions;
}

export interface RunStats extends WarningStats {
  counts: MonthCounts & { statements: number };
}

export interface ComputedMonth {
  readAt: string;
  stats: RunStats;
  statements: Statement[];
}

/**
 * Meters, rates and states one month into the run's rows, inside the caller's engine transaction:
 * usage records and rated lines stream out with COPY as resources are metered (memory holds one
 * resource's history and one counter batch), per-project buckets add up, and the statements follow
 * once the month is read. Nothing here decides whether the run may happen; the caller did.
 */
export async function computeMonth(
  tx: TransactionSql,
  runId: string,
  options: ComputeOptions,
): Promise<ComputedMonth> {
  const { period, model } = options;
  const tally = {
    warnings: new RunWarnings(),
    counts: { resources: 0, candidates: 0, usage_records: 0, rated_records: 0 },
  };
  const queue = new CopyQueue(tx);
  const usage = new CopyWriter(queue, usageCopy);
  const rated = new CopyWriter(queue, ratedLinesCopy);
  const costs = new ProjectCosts();

  return withMonthSnapshot(options.reporting, period, async (snapshot) => {
    // A month has a few prices: each is written out once.
    const rates = new Map<Decimal, string>();
    for await (const batch of rateMonth(snapshot.rows, options, tally)) {
      for (const { resource, rating } of batch) {
        const key = copyLeadBytes([
          runId,
          resource.cloud,
          resource.platform,
          resource.resource_type,
          resource.resource_id,
        ]);
        // Intervals of one resource often share their size object: it is written out once.
        let size: JsonObject | null = null;
        let sizeText: string | null = null;
        for (const i of resource.intervals) {
          if (i.size !== size) {
            size = i.size;
            sizeText = size === null ? null : JSON.stringify(size);
          }
          await usage.add(
            [
              i.project_id,
              i.from,
              i.to,
              i.state,
              sizeText,
              i.counters === undefined ? null : JSON.stringify(i.counters),
            ],
            key,
          );
        }
        for (const line of rating.lines) {
          let rate = rates.get(line.unit_price);
          if (rate === undefined) {
            rate = formatRate(line.unit_price);
            rates.set(line.unit_price, rate);
          }
          await rated.add(
            [line.project_id, line.dimension, formatQuantity(line.quantity), rate, formatMoney(line.amount)],
            key,
          );
          costs.add(resource, line.project_id, line.amount);
        }
      }
    }
    await usage.flush();
    await rated.flush();
    await queue.drain();
    const registry = new Registry(snapshot.projects, snapshot.relations, period);
    const statements = buildStatements(costs.costs(), registry, options.statements, tally.warnings);
    await writeStatements(tx, runId, model.currency, statements);
    await writeSettlements(tx, runId, model.currency, kickbackShares(statements));
    return {
      readAt: snapshot.readAt,
      statements,
      stats: {
        ...tally.warnings.stats(),
        counts: { ...tally.counts, statements: statements.length },
      },
    };
  });
}
