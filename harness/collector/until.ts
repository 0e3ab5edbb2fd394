/**
 * Polls `probe` until `ok` accepts its value and returns that value; after `timeoutMs` it fails with
 * the last value seen, so a test that waits for a state says what state it found instead.
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out; last value ${JSON.stringify(value)?.slice(0, 500)}`);
    await Bun.sleep(50);
  }
}
