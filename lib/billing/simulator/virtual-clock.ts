/**
 * The simulator's virtual clock (docs/simulator.md#publishing-on-the-broker): `factor`
 * virtual seconds pass per wall second from the instant it was last based on. Factor 0 stands still:
 * the publisher moves it forward to each line it publishes, so "as fast as the broker confirms" still
 * tells the fake platform API where the month has got to. Changing the factor rebases the clock on the
 * virtual instant reached, so no virtual time is lost or repeated (decision 231).
 */
export class VirtualClock {
  private baseVirtual: number;
  private baseWall: number;
  private currentFactor: number;
  private readonly listeners = new Set<() => void>();

  constructor(
    startMs: number,
    factor: number,
    private readonly wall: () => number = () => performance.now(),
  ) {
    this.baseVirtual = startMs;
    this.baseWall = wall();
    this.currentFactor = factor;
  }

  get factor(): number {
    return this.currentFactor;
  }

  /** The virtual instant reached, epoch milliseconds (fractional). */
  now(): number {
    return this.baseVirtual + (this.wall() - this.baseWall) * this.currentFactor;
  }

  /** Continues from the virtual instant reached at `factor`. */
  rebase(factor: number): void {
    this.baseVirtual = this.now();
    this.baseWall = this.wall();
    this.currentFactor = factor;
    this.wake();
  }

  /** Moves the clock forward to `ms` (never back); how a clock at factor 0 follows the publisher. */
  advanceTo(ms: number): void {
    if (ms <= this.now()) return;
    this.baseVirtual = ms;
    this.baseWall = this.wall();
    this.wake();
  }

  /**
   * Wall milliseconds until the clock reaches `ms`: 0 when it has, Infinity when it stands still
   * (factor 0) short of it.
   */
  wallUntil(ms: number): number {
    const ahead = ms - this.now();
    if (ahead <= 0) return 0;
    return this.currentFactor === 0 ? Number.POSITIVE_INFINITY : ahead / this.currentFactor;
  }

  /** Calls `listener` at every rebase or advance, so a sleeper can recompute its wait; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private wake(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * Waits until `clock` reaches `ms`, following rebases; at factor 0 it moves the clock there at once.
 * Resolves false when `signal` aborts first.
 */
export async function untilVirtual(clock: VirtualClock, ms: number, signal: AbortSignal): Promise<boolean> {
  for (;;) {
    if (signal.aborted) return false;
    const wait = clock.wallUntil(ms);
    if (wait === 0) return true;
    if (wait === Number.POSITIVE_INFINITY) {
      clock.advanceTo(ms);
      return true;
    }
    await sleepUntilChange(clock, wait, signal);
  }
}

/**
 * Waits until `clock` reaches `ms` without moving it (a clock at factor 0 is waited for until
 * something else moves it). Resolves false when `signal` aborts first.
 */
export async function untilReached(clock: VirtualClock, ms: number, signal: AbortSignal): Promise<boolean> {
  for (;;) {
    if (signal.aborted) return false;
    const wait = clock.wallUntil(ms);
    if (wait === 0) return true;
    await sleepUntilChange(clock, wait, signal);
  }
}

function sleepUntilChange(clock: VirtualClock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.min(ms, 2 ** 31 - 1));
    const onAbort = () => done();
    signal.addEventListener("abort", onAbort, { once: true });
    const unsubscribe = clock.onChange(done);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      unsubscribe();
      resolve();
    }
  });
}
