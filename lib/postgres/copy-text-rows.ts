/**
 * Rows of `COPY … TO STDOUT` in PostgreSQL's text format, read from the bytes the server sends: tab
 * between fields, newline after each row, `\N` for null, and a backslash before each escaped byte.
 * The engine reads its month this way (decision 432): the server writes text it already has, and a
 * split on tabs costs less than the driver's decoding of every column of every row.
 */
import type { Readable } from "node:stream";

export type CopyField = string | null;

const escapes: Readonly<Record<string, string>> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/** A field as PostgreSQL wrote it, unescaped; `\N` is null. */
export function copyTextField(text: string): CopyField {
  if (text === "\\N") return null;
  // Most fields hold no backslash: only those are walked.
  if (!text.includes("\\")) return text;
  return text.replace(/\\(.)/gs, (_, c: string) => escapes[c] ?? c);
}

export interface CopyTextOptions<T> {
  /** Fields per row: a row with another count is refused (the statement and the reader disagree). */
  columns: number;
  /** Builds a row from its fields; the array is reused for the next row, so copy out what is kept. */
  row: (fields: readonly CopyField[]) => T;
  /** Rows per batch handed out. */
  batch: number;
}

/**
 * Parses a text-format COPY's stream (postgres.js `readable()`) into batches of rows. A chunk may end
 * anywhere, even inside a character: the rest waits for the next chunk. A reader that stops early
 * (the caller's loop threw) still reads the rest and drops it: postgres.js pauses its socket for a
 * reader that does not read, and a destroyed stream never asks again, so the connection's next query
 * (the transaction's ROLLBACK) would wait for ever.
 */
export async function* copyTextRows<T>(stream: Readable, options: CopyTextOptions<T>): AsyncGenerator<T[]> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fields: CopyField[] = new Array(options.columns).fill(null);
  let rest = "";
  let rows: T[] = [];
  const parse = (line: string) => {
    let start = 0;
    for (let i = 0; i < options.columns - 1; i++) {
      const tab = line.indexOf("\t", start);
      if (tab < 0)
        throw new RangeError(`a COPY row with ${i + 1} fields where ${options.columns} were expected`);
      fields[i] = copyTextField(line.slice(start, tab));
      start = tab + 1;
    }
    const last = line.slice(start);
    if (last.includes("\t")) throw new RangeError(`a COPY row with more than ${options.columns} fields`);
    fields[options.columns - 1] = copyTextField(last);
    rows.push(options.row(fields));
  };
  let finished = false;
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>) {
      const text = rest + decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
        parse(text.slice(start, end));
        start = end + 1;
      }
      rest = text.slice(start);
      if (rows.length >= options.batch) {
        yield rows;
        rows = [];
      }
    }
    finished = true;
  } finally {
    if (!finished) await drain(stream);
  }
  rest += decoder.decode();
  if (rest !== "") throw new RangeError("a COPY stream that ends inside a row");
  if (rows.length > 0) yield rows;
}

/** Reads a stream to its end, dropping what it holds; settles at once for one already ended or failed. */
function drain(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
    stream.resume();
  });
}
