/**
 * Items grouped by a key, each group in input order, groups in order of first appearance (what
 * ES2024's `Map.groupBy` does; our TypeScript library level is ES2023).
 */
export function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [item]);
    else group.push(item);
  }
  return groups;
}
