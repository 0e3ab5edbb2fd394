/**
 * An async iterable that asks its source for the next item as soon as it hands one out, so the source
 * (a database cursor) produces the next batch while the consumer works on this one. At most one item
 * is held ahead. When the consumer stops early, the source is closed once its pending item settles.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | null = iterator.next();
  try {
    for (;;) {
      const result: IteratorResult<T> = await pending;
      pending = null;
      if (result.done) return;
      pending = iterator.next();
      yield result.value;
    }
  } finally {
    if (pending !== null) {
      await pending.catch(() => undefined);
      await iterator.return?.();
    }
  }
}
