import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import { lineSink } from "../files/line-sink.ts";
import { siftDown } from "./binary-heap.ts";
import { compareRecordsAt, compareTies, orderOffset } from "./byte-record.ts";

interface RecordSortOptions {
  /** The bytes the sort holds: its arena of records, and later its readers' windows. */
  budgetBytes: number;
  /** The directory the runs' own temporary directory is made in (on first spill). */
  workDir: string;
  /** Runs merged at once; more runs are merged in passes. */
  fanIn?: number;
}

/** The smallest window a reader of a run gets, whatever the number of runs. */
const minWindowBytes = 64 << 10;

/**
 * A sort of byte records (`byte-record.ts`) larger than memory (decision 252): records are copied into
 * one arena of the budget; a full arena is sorted by its keys and written as a run; the runs are merged
 * through windows cut from the same arena. Memory is the budget whatever the number of records (plus
 * 64 KiB a run past a budget's worth of runs), and no record is ever an object. Equal keys keep the
 * order they were added in.
 */
export class RecordSort {
  private arena: Buffer | null = null;
  private arenaView: DataView | null = null;
  private used = 0;
  /** Start of each record in the arena, in the order added. */
  private starts: number[] = [];
  private readonly runs: string[] = [];
  private dir: string | null = null;
  private count = 0;

  constructor(private readonly options: RecordSortOptions) {}

  /** Records added so far. */
  get size(): number {
    return this.count;
  }

  /** Run files written so far. */
  get runCount(): number {
    return this.runs.length;
  }

  /** Copies a record in; writes a run first when the arena cannot take it. */
  add(record: Uint8Array): void {
    this.count += 1;
    const capacity = this.options.budgetBytes;
    if (this.used + record.byteLength > capacity) this.spill();
    if (record.byteLength > capacity) {
      // Larger than the arena: a run of its own.
      const path = this.runPath();
      const sink = lineSink(path);
      sink.bytes(record);
      sink.close();
      this.runs.push(path);
      return;
    }
    if (this.arena === null) {
      this.arena = Buffer.allocUnsafe(capacity);
      this.arenaView = new DataView(this.arena.buffer, this.arena.byteOffset, this.arena.byteLength);
    }
    this.arena.set(record, this.used);
    this.starts.push(this.used);
    this.used += record.byteLength;
  }

  /**
   * Every record in order, each a view valid until the next is asked for. Iterate once; the runs are
   * removed when the iteration ends or stops.
   */
  *records(): Generator<Uint8Array> {
    try {
      if (this.runs.length === 0) {
        const arena = this.arena;
        if (arena === null) return;
        for (const start of this.sorted()) {
          yield arena.subarray(start, start + arena.readUInt32LE(start));
        }
        return;
      }
      this.spill();
      const fanIn = this.options.fanIn ?? 256;
      while (this.runs.length > fanIn) {
        const group = this.runs.splice(0, fanIn);
        const path = this.runPath();
        const sink = lineSink(path);
        for (const record of this.merge(group)) sink.bytes(record);
        sink.close();
        for (const done of group) rmSync(done, { force: true });
        this.runs.unshift(path);
      }
      yield* this.merge(this.runs);
    } finally {
      this.discard();
    }
  }

  /** Removes the run files; the records are gone. */
  discard(): void {
    this.arena = null;
    this.arenaView = null;
    this.used = 0;
    this.starts = [];
    this.runs.length = 0;
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  /** The arena's record starts in key order. */
  private sorted(): number[] {
    const view = this.arenaView as DataView;
    const starts = this.starts;
    // The order of each record read once; ties (rare) compare their bytes, then the order added.
    const orders = new Float64Array(starts.length);
    for (let i = 0; i < starts.length; i++)
      orders[i] = view.getFloat64((starts[i] as number) + orderOffset, true);
    const index = Array.from(starts.keys());
    index.sort(
      (a, b) =>
        (orders[a] as number) - (orders[b] as number) ||
        compareTies(view, starts[a] as number, view, starts[b] as number) ||
        a - b,
    );
    return index.map((i) => starts[i] as number);
  }

  /** Sorts the arena and writes it as one run. */
  private spill(): void {
    if (this.starts.length === 0) return;
    const arena = this.arena as Buffer;
    const path = this.runPath();
    const sink = lineSink(path);
    for (const start of this.sorted()) sink.bytes(arena.subarray(start, start + arena.readUInt32LE(start)));
    sink.close();
    this.runs.push(path);
    this.starts = [];
    this.used = 0;
  }

  private runPath(): string {
    this.dir ??= mkdtempSync(join(this.options.workDir, "records-"));
    return join(this.dir, `run-${this.runs.length}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  }

  /** The arena cut into one window per run, or windows of their own when it is too small. */
  private windows(runs: number): Buffer[] {
    const arena = this.arena;
    const size = arena === null ? 0 : Math.floor(arena.byteLength / runs);
    const out: Buffer[] = [];
    for (let i = 0; i < runs; i++) {
      out.push(
        arena !== null && size >= minWindowBytes
          ? arena.subarray(i * size, (i + 1) * size)
          : Buffer.allocUnsafe(minWindowBytes),
      );
    }
    return out;
  }

  /** k-way merge of runs; ties go to the earlier run, so the sort stays stable. */
  private *merge(paths: string[]): Generator<Uint8Array> {
    const windows = this.windows(paths.length);
    const readers = paths.map((path, i) => new RunReader(path, windows[i] as Buffer));
    const before = (a: RunReader, b: RunReader) => {
      const byOrder = a.order - b.order;
      if (byOrder !== 0) return byOrder < 0;
      return (compareRecordsAt(a.view, a.start, b.view, b.start) || a.index - b.index) < 0;
    };
    const heap: RunReader[] = [];
    try {
      readers.forEach((reader, i) => {
        reader.index = i;
        if (reader.advance()) heap.push(reader);
      });
      for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, before);
      while (heap.length > 0) {
        const top = heap[0] as RunReader;
        yield top.record();
        if (!top.advance()) {
          const last = heap.pop() as RunReader;
          if (heap.length === 0) break;
          heap[0] = last;
        }
        siftDown(heap, 0, before);
      }
    } finally {
      for (const reader of readers) reader.close();
    }
  }
}

/** A run file read through a window: the current record is at `start` in `view`. */
class RunReader {
  index = 0;
  order = 0;
  start = 0;
  view: DataView;
  private end = 0;
  private next = 0;
  private readonly fd: number;
  private done = false;

  constructor(
    path: string,
    private buffer: Buffer,
  ) {
    this.fd = openSync(path, "r");
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  }

  record(): Uint8Array {
    return this.buffer.subarray(this.start, this.next);
  }

  /** Moves to the next record; false at the end of the run. */
  advance(): boolean {
    this.start = this.next;
    if (!this.ensure(4)) return false;
    const length = this.view.getUint32(this.start, true);
    this.ensure(length);
    this.next = this.start + length;
    this.order = this.view.getFloat64(this.start + orderOffset, true);
    return true;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** At least `bytes` from `start` in the window, reading (and moving what is left to the front) as needed. */
  private ensure(bytes: number): boolean {
    if (this.end - this.start >= bytes) return true;
    if (bytes > this.buffer.byteLength) {
      // A record larger than the window: a window of its own.
      const grown = Buffer.allocUnsafe(bytes);
      this.buffer.copy(grown, 0, this.start, this.end);
      this.buffer = grown;
      this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
    } else this.buffer.copyWithin(0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    this.next = 0;
    while (this.end < bytes && !this.done) {
      const read = readSync(this.fd, this.buffer, this.end, this.buffer.byteLength - this.end, null);
      if (read === 0) this.done = true;
      this.end += read;
    }
    if (this.end >= bytes) return true;
    if (this.end === 0) return false;
    throw new RangeError("a sort run ends inside a record");
  }
}
