import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Sql } from "postgres";
import { UsageError } from "../cli/usage-error.ts";
import { parsePeriod } from "../time/period.ts";
import type { StoredRelated } from "./engine-schema.ts";
import { kickbackReport } from "./kickback-report.ts";
import { type RunRecord, requireRun } from "./run-lookup.ts";

export type ExportFormat = "json" | "csv";

/** `<cloud>/<project_id>` with the slash (and anything else unsafe in a file name) percent-encoded. */
export function exportKey(cloud: string, projectId: string): string {
  return `${encodeURIComponent(cloud)}%2F${encodeURIComponent(projectId)}`;
}

export const ratedCsvHeader =
  "cloud,platform,resource_type,resource_id,project_id,dimension,quantity,unit_price,amount,currency";

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A rated line as exported: the columns of `rated.csv` but the currency, which is the run's. */
export interface LineRow {
  cloud: string;
  platform: string;
  resource_type: string;
  resource_id: string;
  project_id: string;
  dimension: string;
  quantity: string;
  unit_price: string;
  amount: string;
}

export interface LineItem {
  resource_type: string;
  resource_id: string;
  platform: string;
  dimensions: Record<string, { quantity: string; unit_price: string; amount: string }>;
  total: string;
}

const cents = (n: bigint) => {
  const sign = n < 0n ? "-" : "";
  const a = n < 0n ? -n : n;
  return `${sign}${a / 100n}.${String(a % 100n).padStart(2, "0")}`;
};
const toCents = (s: string) => BigInt(s.replace(".", ""));

/** Rated lines of one project as line items, one per resource. */
function lineItems(rows: readonly LineRow[]): LineItem[] {
  const items: LineItem[] = [];
  let current: (LineItem & { cents: bigint }) | null = null;
  for (const r of rows) {
    if (
      current === null ||
      current.resource_id !== r.resource_id ||
      current.resource_type !== r.resource_type
    ) {
      if (current !== null) items.push(finishItem(current));
      current = {
        resource_type: r.resource_type,
        resource_id: r.resource_id,
        platform: r.platform,
        dimensions: {},
        total: "",
        cents: 0n,
      };
    }
    current.dimensions[r.dimension] = { quantity: r.quantity, unit_price: r.unit_price, amount: r.amount };
    current.cents += toCents(r.amount);
  }
  if (current !== null) items.push(finishItem(current));
  return items;
}

function finishItem(item: LineItem & { cents: bigint }): LineItem {
  const { cents: total, ...rest } = item;
  return { ...rest, total: cents(total) };
}

/**
 * The statements of a run as documents (spec 2, Statement and Adjustment Line, members in the stated
 * order): `cloud`, `project_id`, `total`, and when an adjustment reached the statement `base_cost`,
 * `net_cost`, `kickback_total` and `adjustments`; then ours: `currency`, `line_items`,
 * `related_costs` (attributed tenants, on the cluster manager's statement only) and `error` on a
 * statement that failed.
 */
export async function statementDocuments(
  sql: Sql,
  run: RunRecord,
): Promise<{ key: string; doc: Record<string, unknown> }[]> {
  const statements = await sql<
    {
      cloud: string;
      project_id: string;
      currency: string;
      base_cost: string;
      net_cost: string;
      kickback_total: string;
      total: string;
      adjusted: boolean;
      related: StoredRelated[] | string;
      error: string | null;
    }[]
  >`select cloud, project_id, currency, base_cost::text, net_cost::text, kickback_total::text, total::text, adjusted,
      related, error from statements where run_id = ${run.id} order by cloud, project_id`;
  const adjustments = await sql<
    {
      cloud: string;
      project_id: string;
      type: string;
      relation_type: string;
      relation_target: string;
      relation_id: string;
      scope: string;
      description: string;
      rate: string;
      base: string;
      amount: string;
    }[]
  >`select cloud, project_id, type, relation_type, relation_target, relation_id::text, scope, description,
      to_char(rate, 'FM0.000000') as rate, base::text, amount::text
    from adjustment_records where run_id = ${run.id} order by cloud, project_id, seq`;
  const lines = await sql<
    LineRow[]
  >`select cloud, platform, resource_type, resource_id, project_id, dimension,
      quantity::text, unit_price::text, amount::text from rated_lines where run_id = ${run.id}
    order by cloud, project_id, resource_type, resource_id, dimension`;
  const linesOf = new Map<string, LineRow[]>();
  for (const l of lines) {
    const key = exportKey(l.cloud, l.project_id);
    const list = linesOf.get(key) ?? [];
    list.push(l);
    linesOf.set(key, list);
  }
  return statements.map((s) => {
    const key = exportKey(s.cloud, s.project_id);
    const doc: Record<string, unknown> = { cloud: s.cloud, project_id: s.project_id, total: s.total };
    if (s.adjusted) {
      doc.base_cost = s.base_cost;
      doc.net_cost = s.net_cost;
      doc.kickback_total = s.kickback_total;
      doc.adjustments = adjustments
        .filter((a) => a.cloud === s.cloud && a.project_id === s.project_id)
        .map((a) => ({
          type: a.type,
          relation_type: a.relation_type,
          relation_target: a.relation_target,
          relation_id: a.relation_id,
          scope: a.scope,
          ...(a.description === "" ? {} : { description: a.description }),
          rate: a.rate,
          base: a.base,
          amount: a.amount,
        }));
    }
    doc.currency = s.currency;
    doc.line_items = lineItems(linesOf.get(key) ?? []);
    const related = typeof s.related === "string" ? (JSON.parse(s.related) as StoredRelated[]) : s.related;
    doc.related_costs = related.map((r) => ({
      relation_type: r.relation_type,
      project_id: r.project_id,
      line_items: lineItems(linesOf.get(exportKey(r.cloud, r.project_id)) ?? []),
      total: r.total,
    }));
    if (s.error !== null) doc.error = s.error;
    return { key, doc };
  });
}

/** `export --run --format --out` (spec 2, Export directory); returns the lines it prints. */
export async function exportRun(
  sql: Sql,
  runId: string,
  format: ExportFormat,
  out: string,
): Promise<string[]> {
  const run = await requireRun(sql, runId);
  if (run.status !== "completed" && run.status !== "finalized") {
    throw new UsageError(`run ${run.id} is ${run.status}: only a completed or finalized run is exported`);
  }
  await mkdir(out, { recursive: true });
  const lines = [`run ${run.id} exported for ${run.period} as ${format} into ${out}`];
  if (format === "csv") {
    const sink = Bun.file(join(out, "rated.csv")).writer({ highWaterMark: 1 << 20 });
    sink.write(`${ratedCsvHeader}\n`);
    let n = 0;
    const cursor = sql<LineRow[]>`select cloud, platform, resource_type, resource_id, project_id, dimension,
        quantity::text, unit_price::text, amount::text from rated_lines where run_id = ${run.id}
      order by resource_type, resource_id, cloud, project_id, dimension`.cursor(5_000);
    for await (const rows of cursor) {
      for (const r of rows) {
        const fields = [
          r.cloud,
          r.platform,
          r.resource_type,
          r.resource_id,
          r.project_id,
          r.dimension,
          r.quantity,
          r.unit_price,
          r.amount,
          run.currency,
        ];
        sink.write(`${fields.map(csvField).join(",")}\n`);
        n += 1;
      }
    }
    await sink.end();
    lines.push(`wrote rated.csv with ${n} rated records`);
    return lines;
  }
  const statements = await statementDocuments(sql, run);
  const period = parsePeriod(run.period);
  const runDoc = {
    run_id: run.id,
    kind: run.kind,
    corrects_run_id: run.corrects_run_id,
    period: run.period,
    period_from: period.from,
    period_to: period.to,
    pricing_model: run.pricing_model,
    currency: run.currency,
    status: run.status,
    read_at: run.read_at,
    started_at: run.started_at,
    completed_at: run.completed_at,
    finalized_at: run.finalized_at,
    stats: run.stats,
    statements: statements.map((s) => s.doc),
  };
  await Bun.write(join(out, "run.json"), `${JSON.stringify(runDoc, null, 2)}\n`);
  for (const s of statements) {
    await Bun.write(join(out, `statement-${s.key}.json`), `${JSON.stringify(s.doc, null, 2)}\n`);
  }
  const kickbacks = await kickbackReport(sql, run);
  await Bun.write(join(out, "kickbacks.json"), `${JSON.stringify(kickbacks, null, 2)}\n`);
  lines.push(`wrote run.json and ${statements.length} statements`);
  lines.push(`wrote kickbacks.json with ${kickbacks.beneficiaries.length} beneficiaries`);
  return lines;
}
