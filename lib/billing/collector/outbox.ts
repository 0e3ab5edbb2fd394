/**
 * The collector's durable outbox (docs/collector.md#what-happens-to-a-delivery): mapped events wait here between the
 * broker's delivery and the Reporting API's answer. A delivery is acknowledged only after its event is
 * committed here, and an event leaves only after the API answered for it, so a crash at any point
 * costs at most a redelivery or a second post, both deduplicated at ingest, never an event.
 *
 * bun:sqlite in WAL mode with `synchronous=FULL`: each commit is on disk before it returns, which
 * survives a power cut as well as a crash (decision 261). Commits are grouped by the caller (one per
 * burst of deliveries), since a commit costs one fsync whatever it holds. The file is locked for this
 * process alone, so a second collector pointed at it is refused instead of sending twice (decision 262).
 */
import { Database, type Statement } from "bun:sqlite";

/** One buffered event: its place in the outbox and the event's JSON exactly as it will be posted. */
export interface OutboxRow {
  seq: number;
  json: string;
}

/** The outbox could not do what was asked (a full disk, an I/O error, a lock held elsewhere). */
export class OutboxError extends Error {
  override name = "OutboxError";
}

interface OutboxOptions {
  /** `SVC_OSC_BUFFER_MAX_EVENTS`: the outbox refuses events beyond this many. */
  maxEvents: number;
  /** Injected clock (ms since the epoch) for `buffered_at`. */
  now?: () => number;
}

const schema = `
  create table if not exists outbox (
    seq integer primary key autoincrement,
    event_json text not null,
    buffered_at integer not null
  )`;

/** The two kinds of access whose failures `unusableSince` dates apart. */
type Access = "read" | "write";

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Outbox {
  readonly maxEvents: number;
  readonly #db: Database;
  readonly #now: () => number;
  readonly #insert: Statement;
  readonly #take: Statement<OutboxRow, [number, number]>;
  readonly #oldest: Statement<{ buffered_at: number }, []>;
  readonly #removeRange: Statement;
  readonly #addAll: (jsons: readonly string[], at: number) => void;
  #depth: number;
  #closed = false;
  /** Since when each kind of access has failed (ms), null again after its next success. */
  readonly #failingSince: Record<Access, number | null> = { read: null, write: null };

  private constructor(db: Database, options: OutboxOptions) {
    this.#db = db;
    this.maxEvents = options.maxEvents;
    this.#now = options.now ?? Date.now;
    this.#insert = db.prepare("insert into outbox (event_json, buffered_at) values (?, ?)");
    this.#take = db.prepare<OutboxRow, [number, number]>(
      "select seq, event_json as json from outbox where seq > ? order by seq limit ?",
    );
    this.#oldest = db.prepare<{ buffered_at: number }, []>(
      "select buffered_at from outbox order by seq limit 1",
    );
    this.#removeRange = db.prepare("delete from outbox where seq >= ? and seq <= ?");
    const insert = this.#insert;
    this.#addAll = db.transaction((jsons: readonly string[], at: number) => {
      for (const json of jsons) insert.run(json, at);
    });
    const count = db.prepare<{ n: number }, []>("select count(*) as n from outbox");
    this.#depth = count.get()?.n ?? 0;
    count.finalize();
  }

  /**
   * Opens (or creates) the outbox at `path`. Throws OutboxError when the file cannot be opened or
   * another process holds it.
   */
  static open(path: string, options: OutboxOptions): Outbox {
    let db: Database | undefined;
    try {
      db = new Database(path, { create: true, strict: true });
      // Waits for a lock this long before a statement fails (SQLITE_BUSY): the probes' 2 s bound.
      db.exec("pragma busy_timeout = 2000");
      db.exec("pragma journal_mode = wal");
      db.exec("pragma synchronous = full");
      db.exec("pragma locking_mode = exclusive");
      // The exclusive lock is taken by the first write and kept until close: take it now.
      db.exec(schema);
      db.exec("begin immediate; commit");
      return new Outbox(db, options);
    } catch (error) {
      db?.close();
      const message = describe(error);
      throw new OutboxError(
        /locked|busy/i.test(message)
          ? `the outbox ${path} is in use by another process`
          : `the outbox ${path} cannot be opened: ${message}`,
        { cause: error },
      );
    }
  }

  /** Events buffered now. */
  get depth(): number {
    return this.#depth;
  }

  /** Room left under the bound. */
  get room(): number {
    return Math.max(0, this.maxEvents - this.#depth);
  }

  /**
   * Commits as many of `jsons` as fit under the bound, in one transaction, and returns how many (the
   * first n). Throws OutboxError when the write fails; then nothing of this call is stored.
   */
  add(jsons: readonly string[]): number {
    const fitting = jsons.length <= this.room ? jsons : jsons.slice(0, this.room);
    if (fitting.length === 0) return 0;
    this.#access("write", () => this.#addAll(fitting, this.#now()));
    this.#depth += fitting.length;
    return fitting.length;
  }

  /** Up to `limit` of the oldest events after `afterSeq`, oldest first. */
  take(limit: number, afterSeq = 0): OutboxRow[] {
    return this.#access("read", () => this.#take.all(afterSeq, limit));
  }

  /**
   * Removes the rows of one taken batch: every row from `first` to `last`. A batch is a run of the
   * oldest rows, and rows added later have higher numbers, so the range holds exactly that batch.
   */
  remove(first: number, last: number): number {
    const { changes } = this.#access("write", () => this.#removeRange.run(first, last));
    this.#depth -= changes;
    return changes;
  }

  /** When the oldest buffered event was committed (ms), null when the outbox is empty. */
  oldestBufferedAt(): number | null {
    return this.#access("read", () => this.#oldest.get()?.buffered_at ?? null);
  }

  /**
   * Whether the outbox answers: one read now, and no write failing since the last good one. The time
   * it has been unusable, for `/healthz`, is `unusableSince`.
   */
  check(): boolean {
    if (this.#closed) return false;
    try {
      this.oldestBufferedAt();
    } catch {
      return false;
    }
    return this.#failingSince.write === null;
  }

  /** Since when the outbox has not answered (ms), null while it answers. */
  get unusableSince(): number | null {
    const { read: r, write: w } = this.#failingSince;
    return r === null ? w : w === null ? r : Math.min(r, w);
  }

  /** Makes every write fail (or work again), as a full or read-only disk would: for fault tests. */
  refuseWrites(refuse: boolean): void {
    this.#db.exec(`pragma query_only = ${refuse ? 1 : 0}`);
  }

  /** Closes the file; what is buffered stays for the next start. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // A statement left open keeps the connection, and with it the file's lock, alive after close.
    for (const statement of [this.#insert, this.#take, this.#oldest, this.#removeRange]) statement.finalize();
    this.#db.close();
  }

  /** Runs `work` as one access of its kind: a failure is an OutboxError and dates the unusable span. */
  #access<T>(kind: Access, work: () => T): T {
    try {
      const result = work();
      this.#failingSince[kind] = null;
      return result;
    } catch (error) {
      this.#failingSince[kind] ??= this.#now();
      throw new OutboxError(`the outbox refused a ${kind}: ${describe(error)}`, { cause: error });
    }
  }
}
