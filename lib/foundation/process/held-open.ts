/** A timer that fires once a day: it holds the event loop open and asleep. */
const idleMs = 86_400_000;

/**
 * Waits for `until` with the process held open. Bun ends a process whose event loop holds nothing
 * but a pending promise and signal handlers (`scenario up` exited as soon as it had printed its
 * lines), and while a top-level await waits on such a promise it polls without sleeping (`--keep`
 * used a core while idle). An idle timer fixes both: the loop stays alive and blocks until a signal
 * or the timer wakes it (decision 46).
 */
export async function heldOpen<T>(until: Promise<T>): Promise<T> {
  const timer = setInterval(() => {}, idleMs);
  try {
    return await until;
  } finally {
    clearInterval(timer);
  }
}
