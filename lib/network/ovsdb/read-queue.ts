/**
 * What a session has read but not yet handled, so that reading never waits on handling (decision
 * 372). ovsdb-server sends a session no update while the session's socket is full and then merges
 * the transactions it held back into one update per row; a client that reads only between handling
 * its messages fills the socket (208 KiB of kernel buffer space, 38 KiB of small updates) whenever
 * a burst outruns it. Messages are queued as they are read and handled in slices of `sliceMs` from
 * an immediate, so the event loop reads the socket again between slices; past `maxBytes` of queued
 * text the socket is paused, and resumed below half of it.
 */

export interface ReadQueueOptions<T> {
  handle: (item: T) => void;
  /** Stops reading from the socket (`true`) or reads on (`false`). */
  pauseReading: (paused: boolean) => void;
  maxBytes: number;
  sliceMs: number;
}

export class ReadQueue<T> {
  private items: { item: T; bytes: number }[] = [];
  private head = 0;
  private queuedBytes = 0;
  private scheduled = false;
  private paused = false;
  private stopped = false;

  constructor(private readonly options: ReadQueueOptions<T>) {}

  /** Bytes of text read and not yet handled. */
  get bytes(): number {
    return this.queuedBytes;
  }

  push(item: T, bytes: number): void {
    if (this.stopped) return;
    this.items.push({ item, bytes });
    this.queuedBytes += bytes;
    if (!this.paused && this.queuedBytes > this.options.maxBytes) {
      this.paused = true;
      this.options.pauseReading(true);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  /** Drops what is queued and handles nothing more. */
  stop(): void {
    this.stopped = true;
    this.items = [];
    this.head = 0;
    this.queuedBytes = 0;
  }

  private drain(): void {
    this.scheduled = false;
    const deadline = performance.now() + this.options.sliceMs;
    while (!this.stopped && this.head < this.items.length) {
      const next = this.items[this.head] as { item: T; bytes: number };
      this.head++;
      this.queuedBytes -= next.bytes;
      this.options.handle(next.item);
      if (performance.now() >= deadline) break;
    }
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 4096) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (this.paused && this.queuedBytes <= this.options.maxBytes / 2 && !this.stopped) {
      this.paused = false;
      this.options.pauseReading(false);
    }
    if (!this.stopped && this.head < this.items.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }
}
