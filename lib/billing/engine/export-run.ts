import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Sql } from "postgres";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { csvLine } from "../../foundation/files/csv.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { kickbackReport } from "./kickback-report.ts";
import { chainOf, type RunRecord, requireRun } from "./run-lookup.ts";
import { runDocuments } from "./store/run-documents.ts";
import { standingLinesCursor } from "./store/standing-lines.ts";

export type ExportFormat = "json" | "csv";

export const ratedCsvHeader =
  "cloud,platform,resource_type,resource_id,project_id,dimension,quantity,unit_price,amount,currency";

/** Rows of `rated.csv` per cursor fetch. */
const csvCursorRows = 5_000;

/** What an export wrote: what `export --json` prints. */
export interface ExportReport {
  run_id: string;
  kind: string;
  period: string;
  format: ExportFormat;
  out: string;
  /** The files written, by name. */
  files: string[];
  /** csv: the rated records of rated.csv. */
  rated_records?: number;
  /** json: the statements (a regular run) or credit notes (a correction) written. */
  documents?: number;
  /** json: the beneficiaries (or kickback deltas) in kickbacks.json. */
  beneficiaries?: number;
}

/** The lines `export` prints. */
export function exportLines(r: ExportReport): string[] {
  const lines = [`run ${r.run_id} exported for ${r.period} as ${r.format} into ${r.out}`];
  if (r.format === "csv") return [...lines, `wrote rated.csv with ${r.rated_records} rated records`];
  const correction = r.kind === "correction";
  return [
    ...lines,
    `wrote run.json and ${r.documents} ${correction ? "credit notes" : "statements"}`,
    `wrote kickbacks.json with ${r.beneficiaries} ${correction ? "kickback deltas" : "beneficiaries"}`,
  ];
}

/**
 * `export --run --format --out` (docs/engine.md#export-directory; decision 417); returns what it wrote.
 * A regular run writes `run.json`, its statements and `kickbacks.json`; a correction writes `run.json`,
 * its credit notes and `kickbacks.json` with the kickback deltas. `rated.csv` holds the lines that stand
 * with the run: a correction's is the month as it corrects it (decision 427), so `simulator compare`
 * checks a corrected month too.
 */
export async function exportRun(
  sql: Sql,
  runId: string,
  format: ExportFormat,
  out: string,
): Promise<ExportReport> {
  const run = await requireRun(sql, runId);
  if (run.status !== "completed" && run.status !== "finalized") {
    throw new UsageError(`run ${run.id} is ${run.status}: only a completed or finalized run is exported`);
  }
  await mkdir(out, { recursive: true });
  const report = { run_id: run.id, kind: run.kind, period: run.period, format, out };
  if (format === "csv") {
    const chain = await chainOf(sql, run);
    const sink = Bun.file(join(out, "rated.csv")).writer({ highWaterMark: 1 << 20 });
    sink.write(`${ratedCsvHeader}\n`);
    let n = 0;
    const cursor = standingLinesCursor(
      sql,
      { regular: (chain[0] as RunRecord).id, corrections: chain.slice(1).map((r) => r.id) },
      csvCursorRows,
    );
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
        sink.write(csvLine(fields));
        n += 1;
      }
    }
    await sink.end();
    return { ...report, files: ["rated.csv"], rated_records: n };
  }
  const correction = run.kind === "correction";
  const documents = await runDocuments(sql, run);
  const period = parsePeriod(run.period);
  const runDoc = {
    run_id: run.id,
    kind: run.kind,
    corrects_run_id: run.correctsRunId,
    period: run.period,
    period_from: period.from,
    period_to: period.to,
    pricing_model: run.pricingModel,
    currency: run.currency,
    status: run.status,
    read_at: run.readAt,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    finalized_at: run.finalizedAt,
    stats: run.stats,
    [correction ? "credit_notes" : "statements"]: documents.map((d) => d.doc),
  };
  await Bun.write(join(out, "run.json"), `${JSON.stringify(runDoc, null, 2)}\n`);
  const prefix = correction ? "credit-note" : "statement";
  for (const d of documents) {
    await Bun.write(join(out, `${prefix}-${d.key}.json`), `${JSON.stringify(d.doc, null, 2)}\n`);
  }
  const kickbacks = await kickbackReport(sql, run);
  await Bun.write(join(out, "kickbacks.json"), `${JSON.stringify(kickbacks, null, 2)}\n`);
  return {
    ...report,
    files: ["run.json", ...documents.map((d) => `${prefix}-${d.key}.json`), "kickbacks.json"],
    documents: documents.length,
    beneficiaries: kickbacks.beneficiaries.length,
  };
}
