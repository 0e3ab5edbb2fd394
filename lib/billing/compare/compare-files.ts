import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../../foundation/cli/usage-error.ts";
import { ValidationError } from "../../foundation/errors/svc-error.ts";
import { oracleBill } from "../simulator/oracle-bill/oracle-bill.ts";
import { readOraclePrices } from "../simulator/oracle-bill/oracle-prices.ts";
import { readOracle } from "../simulator/oracle-document.ts";
import { type Comparison, compareWithOracle } from "./compare-oracle.ts";
import {
  compareCreditNotes,
  compareStatements,
  oracleExport,
  readExportedKickbacks,
  readExportedRun,
} from "./compare-statements.ts";
import { RatedCsvError, readRatedCsv } from "./rated-csv.ts";
import { readRegistrySnapshot } from "./registry-snapshot.ts";

async function text(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`${what} ${JSON.stringify(path)} cannot be read (${code})`, { cause });
  }
}

/** An export's `run.json` and `kickbacks.json`. */
async function exportDocuments(dir: string, what: string): Promise<[string, string]> {
  return Promise.all([
    text(join(dir, "run.json"), `${what}'s run.json`),
    text(join(dir, "kickbacks.json"), `${what}'s kickbacks.json`),
  ]);
}

/**
 * `simulator compare --export --oracle --pricing [--registry] [--corrects]`: reads the inputs and
 * compares; with `--corrects` (the export of the run a correction corrects) a line of the correction
 * whose amount is the oracle's and whose quantity is still the finalized one is kept, not a difference
 * (decision 426); with a registry snapshot the export's statements (`run.json`) and kickback
 * settlements (`kickbacks.json`) too (decision 523), or, for a correction's export, its credit notes
 * and kickback deltas against the finalized run's (decision 527). An input that cannot be read or does
 * not parse is the caller's mistake, a UsageError naming it.
 */
export async function compareFiles(options: {
  exportDir: string;
  oracle: string;
  pricing: string;
  registry?: string | undefined;
  corrects?: string | undefined;
}): Promise<Comparison> {
  const { registry, corrects } = options;
  const [csv, oracleText, pricingText, snapshot, documents, finalizedCsv, finalizedDocuments] =
    await Promise.all([
      text(join(options.exportDir, "rated.csv"), "the export's rated.csv"),
      text(options.oracle, "the oracle"),
      text(options.pricing, "the pricing model"),
      registry === undefined ? undefined : text(registry, "the registry snapshot"),
      registry === undefined ? undefined : exportDocuments(options.exportDir, "the export"),
      corrects === undefined ? undefined : text(join(corrects, "rated.csv"), "the corrected run's rated.csv"),
      corrects === undefined || registry === undefined
        ? undefined
        : exportDocuments(corrects, "the corrected run's export"),
    ]);
  try {
    const oracle = readOracle(oracleText);
    const registrySnapshot = snapshot === undefined ? undefined : readRegistrySnapshot(snapshot);
    const bill = oracleBill(oracle, readOraclePrices(pricingText), registrySnapshot);
    const comparison = compareWithOracle(
      oracle,
      bill,
      readRatedCsv(csv),
      finalizedCsv === undefined ? undefined : readRatedCsv(finalizedCsv),
    );
    if (registrySnapshot === undefined || documents === undefined) return comparison;
    const expected = oracleExport(bill);
    const run = readExportedRun(documents[0]);
    const beneficiaries = readExportedKickbacks(documents[1]);
    if (run.kind === "statements") {
      if (finalizedDocuments !== undefined)
        throw new UsageError("the export is a regular run's: --corrects is for a correction's export");
      return {
        ...comparison,
        statements: compareStatements(expected, { statements: run.statements, beneficiaries }),
      };
    }
    if (finalizedDocuments === undefined)
      throw new UsageError(
        "the export is a correction's (credit notes): name the export of the run it corrects with --corrects <dir>",
      );
    const finalized = readExportedRun(finalizedDocuments[0]);
    if (finalized.kind !== "statements" || finalized.run_id !== run.corrects_run_id)
      throw new UsageError(
        `--corrects names the export of run ${finalized.run_id || "(none)"}, but the correction corrects run ${run.corrects_run_id}`,
      );
    const statements = compareCreditNotes(
      expected,
      { statements: finalized.statements, beneficiaries: readExportedKickbacks(finalizedDocuments[1]) },
      { notes: run.notes, beneficiaries },
    );
    return { ...comparison, statements };
  } catch (error) {
    if (error instanceof RatedCsvError || error instanceof ValidationError)
      throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
