import type { Sql, TransactionSql } from "postgres";
import { attachCounters } from "../metering/attach-counters.ts";
import type { CounterSource } from "../metering/counter-sources.ts";
import type { CounterStore } from "../metering/counter-store.ts";
import { type MeteredResource, meterMonth } from "../metering/meter-resource.ts";
import { type Decimal, formatMoney, formatQuantity, formatRate, zero } from "../money/decimal.ts";
import type { PricingModel } from "../pricing/pricing-model.ts";
import { rateResource } from "../pricing/rate-resource.ts";
import {
  type Bucket,
  buildStatements,
  type Statement,
  type StatementOptions,
} from "../statements/build-statements.ts";
import { ProjectCosts } from "../statements/project-costs.ts";
import { projectKey, Registry } from "../statements/registry.ts";
import type { Period } from "../time/period.ts";
import { CopyQueue, CopyWriter } from "./copy-rows.ts";
import { withMonthSnapshot } from "./reporting-source.ts";
import { RunWarnings, type WarningStats } from "./run-warnings.ts";

export interface CounterSetup {
  sources: readonly CounterSource[];
  store: CounterStore;
}

export interface ComputeOptions {
  reporting: Sql;
  period: Period;
  model: PricingModel;
  counters: CounterSetup | null;
  statements: StatementOptions;
}

export interface MonthCounts {
  /** Resources whose history was read. */
  resources: number;
  /** Resources with something inside the period. */
  candidates: number;
  usage_records: number;
  rated_records: number;
  statements: number;
}

export interface RunStats extends WarningStats {
  counts: MonthCounts;
}

export interface ComputedMonth {
  readAt: string;
  stats: RunStats;
  statements: Statement[];
}

/** The leading columns of `usage` and `rated_lines`: whose row it is. */
const resourceColumns = ["run_id", "cloud", "platform", "resource_type", "resource_id", "project_id"];

/** Resources metered before their counters are read in one go. */
const counterBatch = 1_000;

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
  const warnings = new RunWarnings();
  const queue = new CopyQueue(tx);
  const usage = new CopyWriter(queue, "usage", [
    ...resourceColumns,
    "from",
    "to",
    "state",
    "size",
    "counters",
  ]);
  const rated = new CopyWriter(queue, "rated_lines", [
    ...resourceColumns,
    "dimension",
    "quantity",
    "unit_price",
    "amount",
  ]);
  const costs = new ProjectCosts();
  const counts = { resources: 0 };
  let candidates = 0;

  const finish = async (batch: MeteredResource[]) => {
    const failed =
      options.counters === null
        ? new Set<MeteredResource>()
        : await attachCounters(batch, options.counters.sources, options.counters.store, period);
    for (const resource of batch) {
      if (resource.intervals.length > 0) candidates += 1;
      if (resource.starts_without_create) warnings.add("history_starts_without_create");
      const rating = rateResource(model, resource, resource.intervals);
      if (rating.unpriced) warnings.add("resource_type_not_priced");
      if (rating.unknownStates.length > 0) warnings.add("state_not_priced");
      if (rating.unreadable.length > 0) warnings.add("size_member_unreadable");
      if (failed.has(resource)) warnings.add("counter_store_unreachable");
      else if (rating.missingCounters.length > 0) warnings.add("counter_source_missing");
      for (const i of resource.intervals) {
        await usage.add([
          runId,
          resource.cloud,
          resource.platform,
          resource.resource_type,
          resource.resource_id,
          i.project_id,
          i.from,
          i.to,
          i.state,
          i.size === null ? null : JSON.stringify(i.size),
          i.counters === undefined ? null : JSON.stringify(i.counters),
        ]);
      }
      for (const line of rating.lines) {
        await rated.add([
          runId,
          resource.cloud,
          resource.platform,
          resource.resource_type,
          resource.resource_id,
          line.project_id,
          line.dimension,
          formatQuantity(line.quantity),
          formatRate(line.unit_price),
          formatMoney(line.amount),
        ]);
        costs.add(resource, line.project_id, line.amount);
      }
    }
  };

  return withMonthSnapshot(options.reporting, period, async (snapshot) => {
    let batch: MeteredResource[] = [];
    for await (const resource of meterMonth(snapshot.rows, period, counts)) {
      batch.push(resource);
      if (batch.length >= counterBatch) {
        await finish(batch);
        batch = [];
      }
    }
    await finish(batch);
    await usage.flush();
    await rated.flush();
    await queue.drain();
    const registry = new Registry(snapshot.projects, snapshot.relations, period);
    const statements = buildStatements(costs.costs(), registry, options.statements, warnings);
    await writeStatements(tx, runId, model.currency, statements);
    return {
      readAt: snapshot.readAt,
      statements,
      stats: {
        ...warnings.stats(),
        counts: {
          resources: counts.resources,
          candidates,
          usage_records: usage.written,
          rated_records: rated.written,
          statements: statements.length,
        },
      },
    };
  });
}

const storedBuckets = (buckets: readonly Bucket[]) =>
  buckets.map((b) => ({
    platform: b.platform,
    resource_type: b.resource_type,
    amount: formatMoney(b.amount),
  }));

async function insertAll(tx: TransactionSql, table: string, rows: readonly Record<string, unknown>[]) {
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500) as Record<string, string | number | boolean | null>[];
    await tx`insert into ${tx(table)} ${tx(chunk)}`;
  }
}

async function writeStatements(
  tx: TransactionSql,
  runId: string,
  currency: string,
  statements: readonly Statement[],
): Promise<void> {
  const settlements = new Map<
    string,
    { cloud: string; beneficiary: string; total: Decimal; projects: Set<string> }
  >();
  const statementRows: Record<string, unknown>[] = [];
  const adjustmentRows: Record<string, unknown>[] = [];
  for (const s of statements) {
    statementRows.push({
      run_id: runId,
      cloud: s.cloud,
      project_id: s.project_id,
      registry_id: s.registry_id,
      currency,
      base_cost: formatMoney(s.base_cost),
      net_cost: formatMoney(s.net_cost),
      kickback_total: formatMoney(s.kickback_total),
      total: formatMoney(s.total),
      adjusted: s.adjustments.length > 0,
      buckets: JSON.stringify(storedBuckets(s.buckets)),
      related: JSON.stringify(s.related.map((r) => ({ ...r, total: formatMoney(r.total) }))),
      error: s.error,
    });
    for (const [seq, line] of s.adjustments.entries()) {
      adjustmentRows.push({
        run_id: runId,
        cloud: s.cloud,
        project_id: s.project_id,
        seq,
        type: line.type,
        relation_type: line.relation_type,
        relation_target: line.relation_target,
        relation_target_cloud: line.relation_target_cloud,
        relation_id: line.relation_id,
        scope: line.scope,
        description: line.description,
        rate: formatRate(line.rate),
        base: formatMoney(line.base),
        amount: formatMoney(line.amount),
        shares: JSON.stringify(storedBuckets(line.shares)),
      });
      if (line.type !== "kickback") continue;
      const key = projectKey(line.relation_target_cloud, line.relation_target);
      const held = settlements.get(key) ?? {
        cloud: line.relation_target_cloud,
        beneficiary: line.relation_target,
        total: zero,
        projects: new Set<string>(),
      };
      held.total = held.total.plus(line.amount);
      held.projects.add(projectKey(s.cloud, s.project_id));
      settlements.set(key, held);
    }
  }
  await insertAll(tx, "statements", statementRows);
  await insertAll(tx, "adjustment_records", adjustmentRows);
  await insertAll(
    tx,
    "partner_settlements",
    [...settlements.values()].map((s) => ({
      run_id: runId,
      beneficiary_cloud: s.cloud,
      beneficiary: s.beneficiary,
      currency,
      kickback_total: formatMoney(s.total),
      projects: s.projects.size,
    })),
  );
}
