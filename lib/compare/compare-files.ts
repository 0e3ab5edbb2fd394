import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../cli/usage-error.ts";
import { ValidationError } from "../errors/svc-error.ts";
import { PricingModelError, readPricingModel } from "../pricing/pricing-model.ts";
import { readOracle } from "../simulator/oracle-document.ts";
import { type Comparison, compareWithOracle } from "./compare-oracle.ts";
import {
  compareStatements,
  oracleStatements,
  readExportedKickbacks,
  readExportedStatements,
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

/**
 * `simulator compare --export --oracle --pricing [--registry]`: reads the inputs and compares; with a
 * registry snapshot the export's statements (`run.json`) and kickback settlements (`kickbacks.json`)
 * too (decision 523). An input that cannot be read or does not parse is the caller's mistake, a
 * UsageError naming it.
 */
export async function compareFiles(options: {
  exportDir: string;
  oracle: string;
  pricing: string;
  registry?: string | undefined;
}): Promise<Comparison> {
  const registry = options.registry;
  const [csv, oracleText, pricingText, documents] = await Promise.all([
    text(join(options.exportDir, "rated.csv"), "the export's rated.csv"),
    text(options.oracle, "the oracle"),
    text(options.pricing, "the pricing model"),
    registry === undefined
      ? undefined
      : Promise.all([
          text(registry, "the registry snapshot"),
          text(join(options.exportDir, "run.json"), "the export's run.json"),
          text(join(options.exportDir, "kickbacks.json"), "the export's kickbacks.json"),
        ]),
  ]);
  try {
    const oracle = readOracle(oracleText);
    const model = readPricingModel(pricingText);
    const comparison = compareWithOracle(oracle, model, readRatedCsv(csv));
    if (documents === undefined) return comparison;
    const [snapshot, run, kickbacks] = documents;
    const statements = compareStatements(oracleStatements(oracle, model, readRegistrySnapshot(snapshot)), {
      statements: readExportedStatements(run),
      beneficiaries: readExportedKickbacks(kickbacks),
    });
    return { ...comparison, statements };
  } catch (error) {
    if (
      error instanceof PricingModelError ||
      error instanceof RatedCsvError ||
      error instanceof ValidationError
    )
      throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
