import type { NotificationBus } from "./amqp-publisher.ts";
import type { NotificationLine } from "./notification-line.ts";
import { untilVirtual, type VirtualClock } from "./virtual-clock.ts";

/** A line and the virtual instant it is due, epoch milliseconds. */
export interface TimedLine {
  at: number;
  line: NotificationLine;
}

/** Confirms awaited at once: enough to keep a local broker busy, few enough to bound memory. */
const confirmWindow = 512;

/** How long a stopped run waits for the confirms of lines already sent. */
const stopGraceMs = 5000;

/** Resolves with `promise`, or when `signal` aborts (then after a short grace for what is under way). */
async function unlessAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) {
    await Promise.race([promise, Bun.sleep(stopGraceMs)]);
    return;
  }
  let onAbort = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  if (signal.aborted) await Promise.race([promise, Bun.sleep(stopGraceMs)]);
}

/**
 * Publishes `lines` in order, each once the virtual clock reaches its instant; a line dated before one
 * already published is due at once (a duplicate, a reordered transition, a replayed line older than
 * its predecessor). Up to `confirmWindow` confirms are awaited at once; `onConfirmed` counts each.
 * Returns false when `signal` stopped it: a stop waits a few seconds for the confirms of lines already
 * sent, never for a broker that is gone.
 */
export async function publishLines(
  lines: Iterable<TimedLine> | AsyncIterable<TimedLine>,
  options: {
    bus: NotificationBus;
    clock: VirtualClock;
    signal: AbortSignal;
    onConfirmed: () => void;
    /** Lines due whatever the clock says: the released held share. */
    atOnce?: boolean;
  },
): Promise<boolean> {
  const { bus, clock, signal } = options;
  const inFlight = new Set<Promise<void>>();
  for await (const { at, line } of lines) {
    if (signal.aborted) break;
    if (!options.atOnce && !(await untilVirtual(clock, at, signal))) break;
    const confirmed: Promise<void> = bus.publish(line).then(() => {
      inFlight.delete(confirmed);
      options.onConfirmed();
    });
    inFlight.add(confirmed);
    if (inFlight.size >= confirmWindow) await unlessAborted(Promise.race(inFlight), signal);
  }
  await unlessAborted(Promise.all(inFlight), signal);
  return !signal.aborted;
}
