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
  const d = adjustmentDeltas;
  const r = adjustmentRecords;
  const { t, base, amount } = correction
    ? { t: d, base: sqlText<string>`(${d.newBase} - ${d.oldBase})::text`, amount: d.delta }
    : { t: r, base: r.base, amount: r.amount };
  return engineDb(sql)
    .select({
      cloud: t.cloud,
      projectId: t.projectId,
      relationId: t.relationId,
      relationTarget: t.relationTarget,
      relationTargetCloud: t.relationTargetCloud,
      scope: t.scope,
      rate: t.rate,
      base,
      amount,
    })
    .from(t)
    .where(and(eq(t.runId, runId), eq(t.type, "kickback")))
    .orderBy(asc(t.relationTarget), asc(t.cloud), asc(t.projectId), asc(t.relationId), asc(t.seq));
}
