import { CsvError, type CsvRecord, csvRecords } from "../../foundation/files/csv.ts";
import { ratedCsvHeader } from "../engine/export-run.ts";
import type { LineRow } from "../engine/store/line-items.ts";

/** One row of an engine export's `rated.csv`. */
export type RatedRow = LineRow & { currency: string };

export class RatedCsvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RatedCsvError";
  }
}

/**
 * Reads `rated.csv` as the engine writes it (RFC 4180, `lib/foundation/files/csv.ts`); refuses another
 * header, a short row or broken quoting, naming the line.
 */
export function readRatedCsv(text: string): RatedRow[] {
  let records: CsvRecord[];
  try {
    records = csvRecords(text);
  } catch (e) {
    if (e instanceof CsvError) throw new RatedCsvError(`rated.csv ${e.message}`);
    throw e;
  }
  const header = records[0];
  if (header === undefined || header.fields.join(",") !== ratedCsvHeader)
    throw new RatedCsvError(`rated.csv does not start with the header ${ratedCsvHeader}`);
  const names = ratedCsvHeader.split(",") as (keyof RatedRow)[];
  return records.slice(1).map(({ line, fields }) => {
    if (fields.length !== names.length) {
      throw new RatedCsvError(`rated.csv line ${line} has ${fields.length} fields, not ${names.length}`);
    }
    return Object.fromEntries(names.map((n, j) => [n, fields[j] as string])) as unknown as RatedRow;
  });
}
