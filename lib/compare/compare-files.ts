import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "../cli/usage-error.ts";
import { ValidationError } from "../errors/svc-error.ts";
import { PricingModelError, readPricingModel } from "../pricing/pricing-model.ts";
import { readOracle } from "../simulator/oracle-document.ts";
import { type Comparison, compareWithOracle } from "./compare-oracle.ts";
import { RatedCsvError, readRatedCsv } from "./rated-csv.ts";

async function text(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`${what} ${JSON.stringify(path)} cannot be read (${code})`, { cause });
  }
}

/**
 * `simulator compare --export --oracle --pricing`: reads the three inputs and compares. An input that
 * cannot be read or does not parse is the caller's mistake, a UsageError naming it.
 */
export async function compareFiles(options: {
  exportDir: string;
  oracle: string;
  pricing: string;
}): Promise<Comparison> {
  const [csv, oracle, pricing] = await Promise.all([
    text(join(options.exportDir, "rated.csv"), "the export's rated.csv"),
    text(options.oracle, "the oracle"),
    text(options.pricing, "the pricing model"),
  ]);
  try {
    return compareWithOracle(readOracle(oracle), readPricingModel(pricing), readRatedCsv(csv));
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
