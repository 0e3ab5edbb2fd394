import type { Sql, TransactionSql } from "postgres";
import { type CopyValue, copyFields, copyIn } from "../postgres/copy-in.ts";

/**
 * One connection's COPYs, one after the other, each running while the caller goes on: the engine keeps
 * metering the next resources while the database takes the last chunk. `drain()` waits for all and
 * raises the first failure.
 */
export class CopyQueue {
  #last: Promise<void> = Promise.resolve();

  constructor(private readonly sql: Sql | TransactionSql) {}

  /** Waits for the COPY before the previous one, so at most two chunks are in memory per queue. */
  async send(table: string, columns: readonly string[], text: string | readonly string[]): Promise<void> {
    const previous = this.#last;
    const list = columns.map((c) => `"${c}"`).join(", ");
    this.#last = previous.then(() => copyIn(this.sql, `copy "${table}" (${list}) from stdin`, text));
    // A refused COPY fails the next send or the drain, whichever comes first; the chain behind it
    // carries the same failure and must not count as an unhandled rejection, which would end the
    // process before the run is marked failed.
    this.#last.catch(() => {});
    await previous;
  }

  drain(): Promise<void> {
    return this.#last;
  }
}

/**
 * Rows for one table gathered in memory up to `chunk`, then sent with one COPY through the queue:
 * bulk rows of a run go in at COPY speed while memory stays bounded by a few chunks.
 */
export class CopyWriter {
  // The chunk as strings of about `pieceLength` characters, each appended to rather than lines joined
  // at the end (a line is many small parts, and a join made a flat copy of each first); sent piece by
  // piece (decision 433).
  #pieces: string[] = [];
  #text = "";
  #rows = 0;
  written = 0;

  constructor(
    private readonly queue: CopyQueue,
    private readonly table: string,
    private readonly columns: readonly string[],
    private readonly chunk = 10_000,
  ) {}

  add(values: readonly CopyValue[]): Promise<void> {
    return this.addLine(copyFields(values));
  }

  /**
   * A row already in COPY's text form (`copyFields`): the engine writes a resource's leading fields
   * once for all its rows.
   */
  async addLine(line: string): Promise<void> {
    this.#text += `${line}\n`;
    this.#rows += 1;
    if (this.#text.length >= pieceLength) {
      this.#pieces.push(this.#text);
      this.#text = "";
    }
    if (this.#rows >= this.chunk) await this.flush();
  }

  /** Sends what is gathered; the rows are in the database once the queue has drained. */
  async flush(): Promise<void> {
    if (this.#rows === 0) return;
    if (this.#text !== "") this.#pieces.push(this.#text);
    const pieces = this.#pieces;
    this.written += this.#rows;
    this.#pieces = [];
    this.#text = "";
    this.#rows = 0;
    await this.queue.send(this.table, this.columns, pieces);
  }
}

/** Characters per piece of a chunk: a few dozen rows. */
const pieceLength = 32_768;
