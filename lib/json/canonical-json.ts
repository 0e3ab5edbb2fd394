import type { JsonValue } from "../events/event.ts";

/**
 * JSON text with object keys sorted at every depth, so that two equal values always serialize alike.
 * Used wherever sizes or payloads are compared or hashed.
 */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === undefined) return "undefined";
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(",")}}`;
}

/**
 * Whether two JSON values are equal, object keys in any order: what comparing their canonical texts
 * says, without writing them. The fold compares a size at every event (decision 411), so this walks
 * both values side by side with its own stack and stops at the first difference.
 */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  const todo: [JsonValue | undefined, JsonValue | undefined][] = [[a, b]];
  while (todo.length > 0) {
    const [x, y] = todo.pop() as [JsonValue | undefined, JsonValue | undefined];
    if (x === y) continue;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) todo.push([x[i], y[i]]);
      continue;
    }
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(y, key)) return false;
      todo.push([x[key], y[key]]);
    }
  }
  return true;
}
