/**
 * CSV as RFC 4180 writes it, the one dialect our files use (decision 19): fields separated by `,`,
 * records ended by `\n`; a field holding `,`, `"`, `\n` or `\r` is quoted, its quotes doubled. The
 * writer's bytes equal csv-stringify's and the reader's records csv-parse's (property tests in
 * `csv.test.ts` hold them to it); both are hand-written because the libraries took 3 to 6 times as long
 * over an export's lines.
 */

export class CsvError extends Error {
  constructor(
    message: string,
    /** The line the record in error starts on (1-based). */
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = "CsvError";
  }
}

function csvField(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One record, with its `\n`. */
export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(",")}\n`;
}

export interface CsvRecord {
  /** The line the record starts on (1-based). */
  line: number;
  fields: string[];
}

/** How many `\n` are in `text` between `from` and `to`. */
function newlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * The records of `text`, each with the line it starts on. Records end with `\n` or `\r\n`; a quoted
 * field may hold both. Empty lines are skipped. Throws CsvError for an unterminated quoted field or
 * text after a closing quote.
 */
export function csvRecords(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const end = text.length;
  let i = 0;
  let line = 1;
  while (i < end) {
    if (text[i] === "\n" || (text[i] === "\r" && text[i + 1] === "\n")) {
      i += text[i] === "\n" ? 1 : 2;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      if (text[i] === '"') {
        let value = "";
        i++;
        for (;;) {
          const quote = text.indexOf('"', i);
          if (quote === -1) throw new CsvError("an unterminated quoted field", start);
          value += text.slice(i, quote);
          line += newlines(text, i, quote);
          i = quote + 1;
          if (text[i] !== '"') break;
          value += '"';
          i++;
        }
        if (i < end && text[i] !== "," && text[i] !== "\n" && !(text[i] === "\r" && text[i + 1] === "\n"))
          throw new CsvError("text after a closing quote", start);
        fields.push(value);
      } else {
        let stop = i;
        while (stop < end && text[stop] !== "," && text[stop] !== "\n") stop++;
        const crlf = text[stop] === "\n" && text[stop - 1] === "\r" && stop > i;
        fields.push(text.slice(i, crlf ? stop - 1 : stop));
        i = stop;
      }
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === "\r") i++;
      if (text[i] === "\n") {
        i++;
        line++;
      }
      break;
    }
    records.push({ line: start, fields });
  }
  return records;
}
