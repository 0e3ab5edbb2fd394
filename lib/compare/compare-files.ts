import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { readOracle } from "../simulator/oracle-document.ts";
import { type Comparison, compareWithOracle } from "./compare-oracle.ts";
import { readRatedCsv } from "./rated-csv.ts";

/** A file `compare` was pointed at cannot be read. */
export class CompareInputError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "CompareInputError";
  }
}

async function text(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CompareInputError(`${what} ${JSON.stringify(path)} cannot be read (${code})`, { cause });
  }
}

/** `simulator compare --export --oracle --pricing`: reads the three inputs and compares. */
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
  return compareWithOracle(readOracle(oracle), readPricingModel(pricing), readRatedCsv(csv));
}
