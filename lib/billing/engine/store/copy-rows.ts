import type { Sql, TransactionSql } from "postgres";
import { type CopyValue, copyIn } from "../../../foundation/postgres/copy-in.ts";
import { copyLineBound, writeCopyLine } from "../../../foundation/postgres/copy-text-bytes.ts";

/**
 * One connection's COPYs, one after the other, each running while the caller goes on: the engine keeps
 * metering the next resources while the database takes the last chunk. `drain()` waits for all and
 * raises the first failure.
 */
export class CopyQueue {
  #last: Promise<void> = Promise.resolve();

  constructor(private readonly sql: Sql | TransactionSql) {}

  /** Waits for the COPY before the previous one, so at most two chunks are in memory per queue. */
  async send(statement: string, text: string | readonly (string | Uint8Array)[]): Promise<void> {
    const previous = this.#last;
    this.#last = previous.then(() => copyIn(this.sql, statement, text));
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
 * bulk rows of a run go in at COPY speed while memory stays bounded by a few chunks. `statement` is
 * the `COPY … FROM STDIN` (`copyIntoStatement`: its columns from the schema), and each row's values
 * come in its column order.
 */
export class CopyWriter {
  // The chunk as buffers of about `pieceBytes` that rows are written into as bytes (decision 447), sent
  // piece by piece: no line is ever a string, and no piece is a fresh megabyte (decision 433).
  #pieces: Uint8Array[] = [];
  #piece = Buffer.allocUnsafe(pieceBytes);
  #at = 0;
  #rows = 0;
  written = 0;

  constructor(
    private readonly queue: CopyQueue,
    private readonly statement: string,
    private readonly chunk = 10_000,
  ) {}

  /**
   * One row: `lead` first when given (fields already in COPY's form, `copyLeadBytes`: the engine
   * writes a resource's leading fields once for all its rows), then `values`.
   */
  async add(values: readonly CopyValue[], lead: Uint8Array | null = null): Promise<void> {
    const bound = copyLineBound(values, lead);
    if (this.#at + bound > this.#piece.length) {
      this.#endPiece();
      this.#piece = Buffer.allocUnsafe(Math.max(pieceBytes, bound));
    }
    this.#at = writeCopyLine(this.#piece, this.#at, values, lead);
    this.#rows += 1;
    if (this.#rows >= this.chunk) await this.flush();
  }

  /** Sends what is gathered; the rows are in the database once the queue has drained. */
  async flush(): Promise<void> {
    if (this.#rows === 0) return;
    this.#endPiece();
    const pieces = this.#pieces;
    this.written += this.#rows;
    this.#pieces = [];
    this.#rows = 0;
    await this.queue.send(this.statement, pieces);
  }

  /** The piece so far joins the chunk; the rest of its buffer is written into next. */
  #endPiece(): void {
    if (this.#at === 0) return;
    this.#pieces.push(this.#piece.subarray(0, this.#at));
    this.#piece = this.#piece.subarray(this.#at);
    this.#at = 0;
  }
}

/** Bytes per piece of a chunk: a few hundred rows. */
const pieceBytes = 65_536;
