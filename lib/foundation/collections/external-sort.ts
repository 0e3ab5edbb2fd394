import { mkdtemp, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { lineSink } from "../files/line-sink.ts";
import { siftDown, siftUp } from "./binary-heap.ts";

/** How an item is written to a run file and read back: one line, no newline inside. */
export interface SortCodec<T> {
  encode(item: T): string;
  decode(line: string): T;
}

interface ExternalSortOptions<T> {
  compare: (a: T, b: T) => number;
  codec: SortCodec<T>;
  /** What one item costs in memory, roughly, in bytes; the budget counts with it. */
  bytesPerItem: number;
  budgetBytes: number;
  /** The directory the runs' own temporary directory is made in (on first spill). */
  workDir: string;
  /** Runs merged at once; more runs are merged in passes. */
  fanIn?: number;
}

/**
 * Bytes read from a run file per refill: large enough that the awaits do not show, and small enough
 * that the readers of a merge hold about the budget whatever the number of runs (a reader holds its
 * chunk about three times: the bytes, their text, its lines), so memory does not grow with the month.
 */
const maxChunkBytes = 1 << 20;
const minChunkBytes = 64 << 10;

/**
 * A sort of more items than memory should hold (decision 245): items are gathered up to a budget,
 * sorted and written to a run file; the runs and what is left in memory are merged at the end. A sort
 * that stays within its budget never touches the disk. The sort is stable: equal items come out in
 * the order they were added.
 *
 * `add` never writes: it says when the budget is reached, and the caller awaits `spill` at its next
 * await point (the budget is soft by what is added in between).
 */
export class ExternalSort<T> {
  private items: T[] = [];
  private readonly runs: string[] = [];
  private dir: string | null = null;
  private count = 0;

  constructor(private readonly options: ExternalSortOptions<T>) {}

  /** Items added so far. */
  get size(): number {
    return this.count;
  }

  /** Run files written so far. */
  get runCount(): number {
    return this.runs.length;
  }

  get full(): boolean {
    return this.items.length * this.options.bytesPerItem >= this.options.budgetBytes;
  }

  /** Adds an item; true when the budget is reached and `spill` is due. */
  add(item: T): boolean {
    this.items.push(item);
    this.count += 1;
    return this.full;
  }

  /** Sorts the items in memory and writes them as one run. */
  async spill(): Promise<void> {
    if (this.items.length === 0) return;
    const items = this.items;
    this.items = [];
    items.sort(this.options.compare);
    this.runs.push(await this.writeRun(items));
  }

  /**
   * Every item in order, in batches (one await per batch, not per item). Iterate once; the runs
   * are removed when the iteration ends or stops.
   */
  async *batches(batchSize = 4096): AsyncGenerator<T[]> {
    const memory = this.items;
    this.items = [];
    memory.sort(this.options.compare);
    try {
      if (this.runs.length === 0) {
        for (let i = 0; i < memory.length; i += batchSize) yield memory.slice(i, i + batchSize);
        return;
      }
      const fanIn = this.options.fanIn ?? 64;
      while (this.runs.length + 1 > fanIn) {
        const group = this.runs.splice(0, fanIn);
        const merged = await this.writeMergedRun(group);
        this.runs.unshift(merged);
      }
      yield* this.merge(await this.readers(this.runs), memory, batchSize);
    } finally {
      await this.discard();
    }
  }

  /** Calls `each` for every item in order; a promise it returns is awaited before the next item. */
  async drain(each: (item: T) => undefined | Promise<void>): Promise<void> {
    for await (const batch of this.batches()) {
      for (const item of batch) {
        const pending = each(item);
        if (pending !== undefined) await pending;
      }
    }
  }

  /** Removes the run files; the items are gone. */
  async discard(): Promise<void> {
    this.items = [];
    this.runs.length = 0;
    if (this.dir !== null) await rm(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  private async runPath(): Promise<string> {
    this.dir ??= await mkdtemp(join(this.options.workDir, "sort-"));
    return join(this.dir, `run-${this.runs.length}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  }

  private async writeRun(items: Iterable<T>): Promise<string> {
    const path = await this.runPath();
    const sink = lineSink(path);
    for (const item of items) sink.line(this.options.codec.encode(item));
    await sink.end();
    return path;
  }

  private async writeMergedRun(paths: string[]): Promise<string> {
    const path = await this.runPath();
    const sink = lineSink(path);
    for await (const batch of this.merge(await this.readers(paths), [], 4096)) {
      for (const item of batch) sink.line(this.options.codec.encode(item));
    }
    await sink.end();
    for (const p of paths) await rm(p, { force: true });
    return path;
  }

  private async readers(paths: string[]): Promise<RunReader<T>[]> {
    const share = Math.floor(this.options.budgetBytes / (3 * paths.length));
    const chunkBytes = Math.max(minChunkBytes, Math.min(maxChunkBytes, share));
    const readers: RunReader<T>[] = [];
    for (const path of paths) readers.push(await RunReader.open(path, this.options.codec, chunkBytes));
    return readers;
  }

  /** k-way merge of sorted sources; ties go to the earlier source, so the sort stays stable. */
  private async *merge(readers: RunReader<T>[], memory: T[], batchSize: number): AsyncGenerator<T[]> {
    const sources: Source<T>[] = [...readers, new ArraySource(memory)];
    const compare = this.options.compare;
    const heap: { item: T; source: number }[] = [];
    const before = (a: { item: T; source: number }, b: { item: T; source: number }) =>
      (compare(a.item, b.item) || a.source - b.source) < 0;
    const push = (node: { item: T; source: number }) => {
      heap.push(node);
      siftUp(heap, heap.length - 1, before);
    };
    const pop = () => {
      const top = heap[0] as { item: T; source: number };
      const last = heap.pop() as { item: T; source: number };
      if (heap.length > 0) {
        heap[0] = last;
        siftDown(heap, 0, before);
      }
      return top;
    };
    try {
      for (let s = 0; s < sources.length; s++) {
        const item = await (sources[s] as Source<T>).next();
        if (item !== undefined) push({ item, source: s });
      }
      let batch: T[] = [];
      while (heap.length > 0) {
        const top = pop();
        batch.push(top.item);
        const source = sources[top.source] as Source<T>;
        const next = source.ready() ? source.nextNow() : await source.next();
        if (next !== undefined) push({ item: next, source: top.source });
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      for (const reader of readers) await reader.close();
    }
  }
}

interface Source<T> {
  /** True when `nextNow` can answer without reading. */
  ready(): boolean;
  nextNow(): T | undefined;
  next(): Promise<T | undefined>;
}

class ArraySource<T> implements Source<T> {
  private at = 0;
  constructor(private readonly items: T[]) {}
  ready(): boolean {
    return true;
  }
  nextNow(): T | undefined {
    return this.at < this.items.length ? this.items[this.at++] : undefined;
  }
  next(): Promise<T | undefined> {
    return Promise.resolve(this.nextNow());
  }
}

/** A run file read a chunk at a time; items are decoded one by one as the merge reaches them. */
class RunReader<T> implements Source<T> {
  private lines: string[] = [];
  private at = 0;
  private tail = "";
  private done = false;
  private readonly buffer: Buffer;
  private readonly decoder = new TextDecoder();

  private constructor(
    private readonly file: Awaited<ReturnType<typeof open>>,
    private readonly codec: SortCodec<T>,
    chunkBytes: number,
  ) {
    this.buffer = Buffer.allocUnsafe(chunkBytes);
  }

  static async open<T>(path: string, codec: SortCodec<T>, chunkBytes: number): Promise<RunReader<T>> {
    return new RunReader(await open(path, "r"), codec, chunkBytes);
  }

  ready(): boolean {
    return this.at < this.lines.length || (this.done && this.tail === "");
  }

  nextNow(): T | undefined {
    if (this.at < this.lines.length) return this.codec.decode(this.lines[this.at++] as string);
    return undefined;
  }

  async next(): Promise<T | undefined> {
    while (this.at >= this.lines.length && !this.done) await this.fill();
    return this.nextNow();
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  private async fill(): Promise<void> {
    const { bytesRead } = await this.file.read(this.buffer, 0, this.buffer.length, null);
    if (bytesRead === 0) {
      this.done = true;
      this.tail += this.decoder.decode();
      this.lines = this.tail === "" ? [] : [this.tail];
      this.tail = "";
      this.at = 0;
      return;
    }
    const text = this.tail + this.decoder.decode(this.buffer.subarray(0, bytesRead), { stream: true });
    const lines = text.split("\n");
    this.tail = lines.pop() as string;
    this.lines = lines;
    this.at = 0;
  }
}
