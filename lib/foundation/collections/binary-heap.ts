/**
 * A binary min-heap kept in a plain array, ordered by `before` (strictly first): the k-way merges of
 * the external sorts keep one node per run in it. Functions rather than a class, so that a merge keeps
 * its own node shape and tie rule.
 */

/** Moves the node at `from` up until its parent is not after it (after a push). */
export function siftUp<T>(heap: T[], from: number, before: (a: T, b: T) => boolean): void {
  let i = from;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(heap[i] as T, heap[parent] as T)) return;
    [heap[i], heap[parent]] = [heap[parent] as T, heap[i] as T];
    i = parent;
  }
}

/** Moves the node at `from` down until neither child is before it (after the top was replaced). */
export function siftDown<T>(heap: T[], from: number, before: (a: T, b: T) => boolean): void {
  let i = from;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < heap.length && before(heap[l] as T, heap[m] as T)) m = l;
    if (r < heap.length && before(heap[r] as T, heap[m] as T)) m = r;
    if (m === i) return;
    [heap[i], heap[m]] = [heap[m] as T, heap[i] as T];
    i = m;
  }
}
