/** Polls `check` until it returns true; throws `onTimeout()` once `timeoutMs` have passed. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; onTimeout: () => Error },
): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  const interval = options.intervalMs ?? 50;
  for (;;) {
    if (await check()) return;
    if (performance.now() >= deadline) throw options.onTimeout();
    await Bun.sleep(interval);
  }
}
