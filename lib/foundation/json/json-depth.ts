/**
 * How deeply a parsed JSON value nests: a scalar is 0, `{}` and `[]` are 1, `{"a": [1]}` is 2. Counted
 * with its own stack, never the call stack, and no further than `cap + 1`, so a body nested a million
 * levels deep costs one look at each value down to the cap and cannot overflow anything.
 */
export function jsonDepth(value: unknown, cap: number): number {
  let deepest = 0;
  const todo: [unknown, number][] = [[value, 0]];
  while (todo.length > 0) {
    const [item, above] = todo.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    const depth = above + 1;
    if (depth > deepest) deepest = depth;
    if (depth > cap) return depth;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === "object") todo.push([child, depth]);
    }
  }
  return deepest;
}
