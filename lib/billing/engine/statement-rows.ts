import type { TransactionSql } from "postgres";
import { type Decimal, formatMoney, formatRate, zero } from "../../foundation/money/decimal.ts";
import type { Bucket, Statement } from "../statements/build-statements.ts";
import { projectKey } from "../statements/registry.ts";

const storedBuckets = (buckets: readonly Bucket[]) =>
  buckets.map((b) => ({
    platform: b.platform,
    resource_type: b.resource_type,
    amount: formatMoney(b.amount),
  }));

/** Inserts rows of one table in chunks (a run's statements are few; bulk rows go by COPY). */
export async function insertAll(
  tx: TransactionSql,
  table: string,
  rows: readonly Record<string, string | number | boolean | null>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500) as Record<string, string | number | boolean | null>[];
    await tx`insert into ${tx(table)} ${tx(chunk)}`;
  }
}

/** A run's statements and every adjustment line of them, in application order. */
export async function writeStatements(
  tx: TransactionSql,
  runId: string,
  currency: string,
  statements: readonly Statement[],
): Promise<void> {
  const statementRows: Record<string, string | number | boolean | null>[] = [];
  const adjustmentRows: Record<string, string | number | boolean | null>[] = [];
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
    }
  }
  await insertAll(tx, "statements", statementRows);
  await insertAll(tx, "adjustment_records", adjustmentRows);
}

/** One kickback amount owed to a beneficiary by one statement (a line, or a correction's delta of one). */
export interface KickbackShare {
  beneficiary_cloud: string;
  beneficiary: string;
  cloud: string;
  project_id: string;
  amount: Decimal;
}

/** One beneficiary's settlement: its kickback shares summed, and how many statements are behind them. */
export interface PartnerSettlement {
  beneficiary_cloud: string;
  beneficiary: string;
  total: Decimal;
  projects: number;
}

/**
 * The partner settlements of kickback shares (pure): per beneficiary the sum of its shares and the
 * number of statements behind them, in the order beneficiaries first appear. A run stores them, and
 * `simulator compare --registry` states them of the oracle's statements.
 */
export function partnerSettlements(shares: readonly KickbackShare[]): PartnerSettlement[] {
  const settlements = new Map<string, { settlement: PartnerSettlement; projects: Set<string> }>();
  for (const share of shares) {
    const key = projectKey(share.beneficiary_cloud, share.beneficiary);
    const held = settlements.get(key) ?? {
      settlement: {
        beneficiary_cloud: share.beneficiary_cloud,
        beneficiary: share.beneficiary,
        total: zero,
        projects: 0,
      },
      projects: new Set<string>(),
    };
    held.settlement.total = held.settlement.total.plus(share.amount);
    held.projects.add(projectKey(share.cloud, share.project_id));
    held.settlement.projects = held.projects.size;
    settlements.set(key, held);
  }
  return [...settlements.values()].map((s) => s.settlement);
}

/**
 * The partner settlement of a run: per beneficiary the sum of its kickback shares and the number of
 * statements behind them. A correction's shares are its kickback deltas, so its settlement is what
 * each beneficiary is owed more or less.
 */
export async function writeSettlements(
  tx: TransactionSql,
  runId: string,
  currency: string,
  shares: readonly KickbackShare[],
): Promise<void> {
  await insertAll(
    tx,
    "partner_settlements",
    partnerSettlements(shares).map((s) => ({
      run_id: runId,
      beneficiary_cloud: s.beneficiary_cloud,
      beneficiary: s.beneficiary,
      currency,
      kickback_total: formatMoney(s.total),
      projects: s.projects,
    })),
  );
}

/** The kickback lines of statements as settlement shares. */
export function kickbackShares(statements: readonly Statement[]): KickbackShare[] {
  return statements.flatMap((s) =>
    s.adjustments
      .filter((line) => line.type === "kickback")
      .map((line) => ({
        beneficiary_cloud: line.relation_target_cloud,
        beneficiary: line.relation_target,
        cloud: s.cloud,
        project_id: s.project_id,
        amount: line.amount,
      })),
  );
}
