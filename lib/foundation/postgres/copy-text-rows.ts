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

interface CopyTextOptions<T> {
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
  const { columns } = options;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fields: CopyField[] = new Array(columns).fill(null);
  // The previous row's fields as written (a newline never is one, so nothing matches at first).
  const written: string[] = new Array(columns).fill("\n");
  let rows: T[] = [];
  /**
   * One row, decoded on its own: a field's string then holds on to its row, never to a whole chunk of
   * the stream. A field written as the one above it is not cut out again: its value is the same
   * string (decision 435). A month's rows repeat the cloud, the type, the resource and mostly the
   * payload of the row above, and a shared string costs no memory and compares at once downstream.
   */
  const parse = (line: Uint8Array) => {
    const text = decoder.decode(line);
    let at = 0;
    for (let i = 0; i < columns; i++) {
      const last = i === columns - 1;
      const previous = written[i] as string;
      const after = at + previous.length;
      if (text.startsWith(previous, at) && (last ? after === text.length : text.charCodeAt(after) === tab)) {
        at = after + 1;
        continue;
      }
      const stop = last ? text.length : text.indexOf("\t", at);
      if (stop < 0) throw new RangeError(`a COPY row with ${i + 1} fields where ${columns} were expected`);
      const raw = text.slice(at, stop);
      if (last && raw.includes("\t")) throw new RangeError(`a COPY row with more than ${columns} fields`);
      written[i] = raw;
      fields[i] = copyTextField(raw);
      at = stop + 1;
    }
    rows.push(options.row(fields));
  };
  // The start of a row the previous chunk did not finish.
  let rest: Uint8Array | null = null;
  let finished = false;
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>) {
      let start = 0;
      let end = chunk.indexOf(newline);
      if (rest !== null && end >= 0) {
        parse(joined(rest, chunk.subarray(0, end)));
        rest = null;
        start = end + 1;
        end = chunk.indexOf(newline, start);
      }
      for (; end >= 0; end = chunk.indexOf(newline, start)) {
        parse(chunk.subarray(start, end));
        start = end + 1;
      }
      if (start < chunk.length) rest = joined(rest, chunk.subarray(start));
      if (rows.length >= options.batch) {
        yield rows;
        rows = [];
      }
    }
    finished = true;
  } finally {
    if (!finished) await drain(stream);
  }
  if (rest !== null) throw new RangeError("a COPY stream that ends inside a row");
  if (rows.length > 0) yield rows;
}

const tab = 9;
const newline = 10;

/** `a` then `b` in a new array (a row split between chunks: rare and short). */
function joined(a: Uint8Array | null, b: Uint8Array): Uint8Array {
  if (a === null) return b.slice();
  const both = new Uint8Array(a.length + b.length);
  both.set(a);
  both.set(b, a.length);
  return both;
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
