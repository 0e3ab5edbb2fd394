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

/** RFC 4180 fields of one line (no line breaks inside fields: the engine writes none). */
function fields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = "";
      i += 1;
      for (;;) {
        const quote = line.indexOf('"', i);
        if (quote === -1) throw new RatedCsvError("an unterminated quoted field");
        value += line.slice(i, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      out.push(value);
      i += 1;
    } else {
      const comma = line.indexOf(",", i);
      const end = comma === -1 ? line.length : comma;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

/** Reads `rated.csv` as the engine writes it; refuses another header or a short row, naming the line. */
export function readRatedCsv(text: string): RatedRow[] {
  const lines = text.split("\n").filter((l) => l !== "");
  if (lines[0] !== ratedCsvHeader)
    throw new RatedCsvError(`rated.csv does not start with the header ${ratedCsvHeader}`);
  const names = ratedCsvHeader.split(",") as (keyof RatedRow)[];
  return lines.slice(1).map((line, i) => {
    let values: string[];
    try {
      values = fields(line);
    } catch (e) {
      throw new RatedCsvError(`rated.csv line ${i + 2}: ${(e as Error).message}`);
    }
    if (values.length !== names.length) {
      throw new RatedCsvError(`rated.csv line ${i + 2} has ${values.length} fields, not ${names.length}`);
    }
    return Object.fromEntries(names.map((n, j) => [n, values[j] as string])) as unknown as RatedRow;
  });
}
