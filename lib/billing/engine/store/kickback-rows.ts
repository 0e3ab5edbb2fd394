import { and, asc, eq, sql as sqlText } from "drizzle-orm";
import type { Sql } from "postgres";
import { engineDb } from "./engine-db.ts";
import { adjustmentDeltas, adjustmentRecords, partnerSettlements } from "./engine-schema.ts";

/** A run's partner settlements, by beneficiary. */
export function settlementRows(sql: Sql, runId: string) {
  return engineDb(sql)
    .select()
    .from(partnerSettlements)
    .where(eq(partnerSettlements.runId, runId))
    .orderBy(asc(partnerSettlements.beneficiary), asc(partnerSettlements.beneficiaryCloud));
}

/**
 * A run's kickback lines by beneficiary, statement and relation; a correction's are its kickback
 * deltas, with `base` and `amount` how far the line's base and amount moved.
 */
export function kickbackLineRows(sql: Sql, runId: string, correction: boolean) {
  const db = engineDb(sql);
  if (correction) {
    const d = adjustmentDeltas;
    return db
      .select({
        cloud: d.cloud,
        projectId: d.projectId,
        relationId: d.relationId,
        relationTarget: d.relationTarget,
        relationTargetCloud: d.relationTargetCloud,
        scope: d.scope,
        rate: d.rate,
        base: sqlText<string>`(${d.newBase} - ${d.oldBase})::text`,
        amount: d.delta,
      })
      .from(d)
      .where(and(eq(d.runId, runId), eq(d.type, "kickback")))
      .orderBy(asc(d.relationTarget), asc(d.cloud), asc(d.projectId), asc(d.relationId), asc(d.seq));
  }
  const r = adjustmentRecords;
  return db
    .select({
      cloud: r.cloud,
      projectId: r.projectId,
      relationId: r.relationId,
      relationTarget: r.relationTarget,
      relationTargetCloud: r.relationTargetCloud,
      scope: r.scope,
      rate: r.rate,
      base: r.base,
      amount: r.amount,
    })
    .from(r)
    .where(and(eq(r.runId, runId), eq(r.type, "kickback")))
    .orderBy(asc(r.relationTarget), asc(r.cloud), asc(r.projectId), asc(r.relationId), asc(r.seq));
}
