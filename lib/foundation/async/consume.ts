/**
 * Runs a generator to its end, handing each item it yields to `each` (awaited before the next is
 * asked for), and returns what it returns: a pure pipeline yields what a writer stores as it goes and
 * returns what is stored last. When `each` throws, the generator is closed and the error goes on.
 */
export async function consume<Y, R>(
  generator: AsyncGenerator<Y, R>,
  each: (item: Y) => Promise<void>,
): Promise<R> {
  for (;;) {
    const next = await generator.next();
    if (next.done) return next.value;
    try {
      await each(next.value);
    } catch (error) {
      await generator.return?.(undefined as R);
      throw error;
    }
  }
}
