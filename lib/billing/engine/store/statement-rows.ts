import type { PgTable } from "drizzle-orm/pg-core";
import type { TransactionSql } from "postgres";
import { formatMoney, formatQuantity, formatRate } from "../../../foundation/money/decimal.ts";
import type { CreditNote, PlanDeltas, PlanLineDelta } from "../../corrections/credit-note.ts";
import type { Bucket } from "../../statements/bucket.ts";
import type { RelatedCost, Statement } from "../../statements/build-statements.ts";
import type { PartnerSettlement } from "../../statements/partner-settlements.ts";
import type { StatementPlan } from "../../statements/statement-plan.ts";
import { type EngineDb, engineDb } from "./engine-db.ts";
import {
  adjustmentDeltas,
  adjustmentRecords,
  creditNotes,
  partnerSettlements as partnerSettlementRows,
  type StoredBucket,
  type StoredPlan,
  type StoredPlanDeltas,
  type StoredRelated,
  statements as statementRows,
} from "./engine-schema.ts";

const storedBuckets = (buckets: readonly Bucket[]): StoredBucket[] =>
  buckets.map((b) => ({
    platform: b.platform,
    resource_type: b.resource_type,
    amount: formatMoney(b.amount),
  }));

const storedRelated = (related: readonly RelatedCost[]): StoredRelated[] =>
  related.map((r) => ({ ...r, total: formatMoney(r.total) }));

/**
 * A statement's plan lines as text (decision 467): quantities six places, amounts two, and a tier's bound
 * and price as the model wrote them (a price may have ten places, which six would misstate).
 */
const storedPlan = (plan: StatementPlan | null): StoredPlan | null =>
  plan === null
    ? null
    : {
        name: plan.name,
        tier_lines: plan.tier_lines.map((l) => ({
          dimension: l.dimension,
          mode: l.mode,
          quantity: formatQuantity(l.quantity),
          tiers: l.tiers.map((t) => ({
            up_to: t.up_to === null ? null : t.up_to.toFixed(),
            quantity: formatQuantity(t.quantity),
            unit_price: t.unit_price.toFixed(),
          })),
          amount: formatMoney(l.amount),
        })),
        minimums: plan.minimums.map((m) => ({
          scope: m.scope,
          minimum: formatMoney(m.minimum),
          usage: formatMoney(m.usage),
          amount: formatMoney(m.amount),
        })),
      };

const storedDelta = (d: PlanLineDelta) => ({
  old: formatMoney(d.old),
  new: formatMoney(d.new),
  delta: formatMoney(d.delta),
});

const storedPlanDeltas = (plan: PlanDeltas | null): StoredPlanDeltas | null =>
  plan === null
    ? null
    : {
        tier_lines: plan.tier_lines.map((l) => ({ dimension: l.dimension, ...storedDelta(l) })),
        minimums: plan.minimums.map((m) => ({ scope: m.scope, ...storedDelta(m) })),
      };

/** Inserts rows of one table in chunks (a run's statements are few; bulk rows go by COPY). */
export async function insertAll<T extends PgTable>(
  db: EngineDb,
  table: T,
  rows: readonly T["$inferInsert"][],
) {
  for (let i = 0; i < rows.length; i += 500) await db.insert(table).values(rows.slice(i, i + 500));
}

/** A run's statements and every adjustment line of them, in application order. */
export async function writeStatements(
  tx: TransactionSql,
  runId: string,
  currency: string,
  statements: readonly Statement[],
): Promise<void> {
  const db = engineDb(tx);
  await insertAll(
    db,
    statementRows,
    statements.map((s) => ({
      runId,
      cloud: s.cloud,
      projectId: s.project_id,
      registryId: s.registry_id,
      currency,
      baseCost: formatMoney(s.base_cost),
      netCost: formatMoney(s.net_cost),
      kickbackTotal: formatMoney(s.kickback_total),
      total: formatMoney(s.total),
      adjusted: s.adjustments.length > 0,
      buckets: storedBuckets(s.buckets),
      related: storedRelated(s.related),
      plan: storedPlan(s.plan),
      error: s.error,
    })),
  );
  await insertAll(
    db,
    adjustmentRecords,
    statements.flatMap((s) =>
      s.adjustments.map((line, seq) => ({
        runId,
        cloud: s.cloud,
        projectId: s.project_id,
        seq,
        type: line.type,
        relationType: line.relation_type,
        relationTarget: line.relation_target,
        relationTargetCloud: line.relation_target_cloud,
        relationId: line.relation_id,
        scope: line.scope,
        description: line.description,
        rate: formatRate(line.rate),
        base: formatMoney(line.base),
        amount: formatMoney(line.amount),
        shares: storedBuckets(line.shares),
      })),
    ),
  );
}

/** The partner settlement of a run (of a correction: its kickback deltas), per beneficiary. */
export async function writeSettlements(
  tx: TransactionSql,
  runId: string,
  currency: string,
  settlements: readonly PartnerSettlement[],
): Promise<void> {
  await insertAll(
    engineDb(tx),
    partnerSettlementRows,
    settlements.map((s) => ({
      runId,
      beneficiaryCloud: s.beneficiary_cloud,
      beneficiary: s.beneficiary,
      currency,
      kickbackTotal: formatMoney(s.total),
      projects: s.projects,
    })),
  );
}

/** A correction's notes, their adjustment deltas and the statements they restate. */
export async function writeCreditNotes(
  tx: TransactionSql,
  runId: string,
  currency: string,
  notes: readonly CreditNote[],
): Promise<void> {
  const db = engineDb(tx);
  await insertAll(
    db,
    creditNotes,
    notes.map((n) => ({
      runId,
      cloud: n.cloud,
      projectId: n.project_id,
      registryId: n.registry_id,
      currency,
      baseDelta: formatMoney(n.base_delta),
      netDelta: formatMoney(n.net_delta),
      kickbackDelta: formatMoney(n.kickback_delta),
      total: formatMoney(n.total),
      related: storedRelated(n.related),
      plan: storedPlanDeltas(n.plan),
      error: n.error,
    })),
  );
  await insertAll(
    db,
    adjustmentDeltas,
    notes.flatMap((n) =>
      n.adjustments.map((a, seq) => ({
        runId,
        cloud: n.cloud,
        projectId: n.project_id,
        seq,
        type: a.type,
        relationType: a.relation_type,
        relationTarget: a.relation_target,
        relationTargetCloud: a.relation_target_cloud,
        relationId: a.relation_id,
        scope: a.scope,
        rate: formatRate(a.rate),
        oldBase: formatMoney(a.old_base),
        newBase: formatMoney(a.new_base),
        oldAmount: formatMoney(a.old),
        newAmount: formatMoney(a.new),
        delta: formatMoney(a.delta),
      })),
    ),
  );
  await writeStatements(
    tx,
    runId,
    currency,
    notes.map((n) => n.corrected),
  );
}
