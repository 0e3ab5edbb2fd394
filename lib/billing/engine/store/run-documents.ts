import { asc, eq } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Sql } from "postgres";
import { groupBy } from "../../../foundation/collections/group-by.ts";
import { type EngineDb, engineDb } from "./engine-db.ts";
import {
  adjustmentDeltas,
  adjustmentRecords,
  creditNotes,
  lineDeltas,
  ratedLines,
  type StoredRelated,
  statements,
} from "./engine-schema.ts";
import { exportKey, type LineItem, lineItems } from "./line-items.ts";
import type { RunRecord } from "./runs.ts";

/** A document of a run's export and the key its file is named by (`statement-<key>.json`). */
export interface RunDocument {
  key: string;
  doc: Record<string, unknown>;
}

/**
 * A run's documents: a regular run's statements, a correction's credit notes. Both are read the same
 * way (the documents by cloud and project, their adjustment lines in application order, their lines by
 * resource), then shaped each after its own part of docs/engine.md.
 */
export async function runDocuments(sql: Sql, run: RunRecord): Promise<RunDocument[]> {
  const db = engineDb(sql);
  if (run.kind === "correction") {
    const d = lineDeltas;
    const lineOrder = [
      d.noteCloud,
      d.noteProjectId,
      d.cloud,
      d.projectId,
      d.resourceType,
      d.resourceId,
      d.dimension,
    ];
    const rows = await documentRows(db, run.id, {
      heads: creditNotes,
      adjustments: adjustmentDeltas,
      lines: d,
      lineOrder,
    });
    return creditNoteDocuments(run, rows);
  }
  const r = ratedLines;
  const lineOrder = [r.cloud, r.projectId, r.resourceType, r.resourceId, r.dimension];
  return statementDocuments(
    await documentRows(db, run.id, {
      heads: statements,
      adjustments: adjustmentRecords,
      lines: r,
      lineOrder,
    }),
  );
}

type RunTable = PgTable & { runId: AnyPgColumn };
type ProjectTable = RunTable & { cloud: AnyPgColumn; projectId: AnyPgColumn };

/**
 * A run's documents (by cloud and project), their adjustment lines (in application order) and their
 * lines (in `lineOrder`), from the tables of its kind.
 */
async function documentRows<
  H extends ProjectTable,
  A extends ProjectTable & { seq: AnyPgColumn },
  L extends RunTable,
>(
  db: EngineDb,
  runId: string,
  tables: { heads: H; adjustments: A; lines: L; lineOrder: readonly AnyPgColumn[] },
): Promise<DocumentRows<H["$inferSelect"], A["$inferSelect"], L["$inferSelect"]>> {
  const { heads: h, adjustments: a } = tables;
  return {
    heads: await rowsOfRun(db, h, runId, [h.cloud, h.projectId]),
    adjustments: await rowsOfRun(db, a, runId, [a.cloud, a.projectId, a.seq]),
    lines: await rowsOfRun(db, tables.lines, runId, tables.lineOrder),
  };
}

/** A run's rows of one table in the order given (drizzle cannot type a query over a table parameter). */
function rowsOfRun<T extends RunTable>(
  db: EngineDb,
  table: T,
  runId: string,
  order: readonly AnyPgColumn[],
): Promise<T["$inferSelect"][]> {
  return db
    .select()
    .from(table as PgTable)
    .where(eq(table.runId, runId))
    .orderBy(...order.map((c) => asc(c))) as Promise<T["$inferSelect"][]>;
}

interface DocumentRows<H, A, L> {
  heads: readonly H[];
  adjustments: readonly A[];
  lines: readonly L[];
}

type Head = { cloud: string; projectId: string; related: StoredRelated[] };
type Adjustment = typeof adjustmentRecords.$inferSelect | typeof adjustmentDeltas.$inferSelect;

/** What every adjustment says of itself, on a statement and on a note, first and in this order. */
const adjustmentHead = (a: Adjustment) => ({
  type: a.type,
  relation_type: a.relationType,
  relation_target: a.relationTarget,
  relation_id: a.relationId,
  scope: a.scope,
});

const adjustmentsOf = <A extends Adjustment>(adjustments: readonly A[], head: Head) =>
  adjustments.filter((a) => a.cloud === head.cloud && a.projectId === head.projectId);

/** Attributed tenants' line items (on a cluster manager's document only), `itemsOf` a tenant's. */
const relatedCosts = <V>(head: Head, itemsOf: (cloud: string, projectId: string) => LineItem<V>[]) =>
  head.related.map((r) => ({
    relation_type: r.relation_type,
    project_id: r.project_id,
    line_items: itemsOf(r.cloud, r.project_id),
    total: r.total,
  }));

/** Ours at a document's end: `plan` when a plan line stood or moved (decision 467), `error` when it failed. */
function withPlanAndError(doc: Record<string, unknown>, head: { plan: unknown; error: string | null }) {
  if (head.plan !== null) doc.plan = head.plan;
  if (head.error !== null) doc.error = head.error;
  return doc;
}

/**
 * The statements of a run as documents (docs/engine.md#statements, members in their
 * order): `cloud`, `project_id`, `total`, and when an adjustment reached the statement `base_cost`,
 * `net_cost`, `kickback_total` and `adjustments`; then ours: `currency`, `line_items`,
 * `related_costs` (attributed tenants, on the cluster manager's statement only), `plan` when a plan
 * put lines on it (decision 467) and `error` on a statement that failed.
 */
function statementDocuments(
  rows: DocumentRows<
    typeof statements.$inferSelect,
    typeof adjustmentRecords.$inferSelect,
    typeof ratedLines.$inferSelect
  >,
): RunDocument[] {
  const linesOf = groupBy(rows.lines, (l) => exportKey(l.cloud, l.projectId));
  const itemsOf = (cloud: string, projectId: string) =>
    lineItems(
      linesOf.get(exportKey(cloud, projectId)) ?? [],
      (r) => ({ quantity: r.quantity, unit_price: r.unitPrice, amount: r.amount }),
      (r) => r.amount,
    );
  return rows.heads.map((s) => {
    const doc: Record<string, unknown> = { cloud: s.cloud, project_id: s.projectId, total: s.total };
    if (s.adjusted) {
      doc.base_cost = s.baseCost;
      doc.net_cost = s.netCost;
      doc.kickback_total = s.kickbackTotal;
      doc.adjustments = adjustmentsOf(rows.adjustments, s).map((a) => ({
        ...adjustmentHead(a),
        ...(a.description === "" ? {} : { description: a.description }),
        rate: a.rate,
        base: a.base,
        amount: a.amount,
      }));
    }
    doc.currency = s.currency;
    doc.line_items = itemsOf(s.cloud, s.projectId);
    doc.related_costs = relatedCosts(s, itemsOf);
    return { key: exportKey(s.cloud, s.projectId), doc: withPlanAndError(doc, s) };
  });
}

/**
 * A correction's credit notes as documents (docs/engine.md#credit-notes, every member in its order):
 * `project_id`, `corrects_run_id`, `line_items` (the note's own resources, each dimension's `old`,
 * `new` and `delta`), `base_delta`, `adjustments`, `net_delta`, `kickback_delta`, `related_costs`
 * (attributed tenants' line items, on the cluster manager's note only) and `total`; then ours (decision
 * 427): `cloud`, `currency`, `plan` when a plan line moved (decision 467), and `error` when the restated
 * statement failed.
 */
function creditNoteDocuments(
  run: RunRecord,
  rows: DocumentRows<
    typeof creditNotes.$inferSelect,
    typeof adjustmentDeltas.$inferSelect,
    typeof lineDeltas.$inferSelect
  >,
): RunDocument[] {
  const rowsOf = groupBy(
    rows.lines,
    (d) => `${exportKey(d.noteCloud, d.noteProjectId)}\u0000${exportKey(d.cloud, d.projectId)}`,
  );
  return rows.heads.map((n) => {
    const key = exportKey(n.cloud, n.projectId);
    const itemsOf = (cloud: string, projectId: string) =>
      lineItems(
        rowsOf.get(`${key}\u0000${exportKey(cloud, projectId)}`) ?? [],
        (r) => ({ old: r.oldAmount, new: r.newAmount, delta: r.delta }),
        (r) => r.delta,
      );
    const doc: Record<string, unknown> = {
      project_id: n.projectId,
      corrects_run_id: run.correctsRunId,
      line_items: itemsOf(n.cloud, n.projectId),
      base_delta: n.baseDelta,
      adjustments: adjustmentsOf(rows.adjustments, n).map((a) => ({
        ...adjustmentHead(a),
        rate: a.rate,
        old: a.oldAmount,
        new: a.newAmount,
        delta: a.delta,
      })),
      net_delta: n.netDelta,
      kickback_delta: n.kickbackDelta,
      related_costs: relatedCosts(n, itemsOf),
      total: n.total,
      cloud: n.cloud,
      currency: n.currency,
    };
    return { key, doc: withPlanAndError(doc, n) };
  });
}
