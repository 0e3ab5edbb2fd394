import { jsonDepth } from "./json-depth.ts";
import type { JsonValue } from "./json-value.ts";

/** A piece of punctuation on the work stack of `canonicalJson`, told apart from a value to write. */
class Punctuation {
  constructor(readonly text: string) {}
}

/**
 * JSON text with object keys sorted at every depth, so that two equal values always serialize alike.
 * Written with its own stack rather than recursion, so a value of any depth (one stored before ingest
 * bounded the depth of a payload, decision 118) is written rather than overflowing the call stack.
 */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === undefined) return "undefined";
  const out: string[] = [];
  const todo: (JsonValue | Punctuation)[] = [value];
  while (todo.length > 0) {
    const item = todo.pop() as JsonValue | Punctuation;
    if (item instanceof Punctuation) {
      out.push(item.text);
    } else if (item === null || typeof item !== "object") {
      out.push(JSON.stringify(item));
    } else if (Array.isArray(item)) {
      out.push("[");
      todo.push(new Punctuation("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        todo.push(item[i] as JsonValue);
        if (i > 0) todo.push(new Punctuation(","));
      }
    } else {
      out.push("{");
      todo.push(new Punctuation("}"));
      const keys = Object.keys(item).sort();
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        todo.push(item[key] as JsonValue);
        todo.push(new Punctuation(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`));
      }
    }
  }
  return out.join("");
}

/** Nesting `JSON.stringify` writes safely whatever the stack already holds. */
const safeDepth = 1000;

/**
 * JSON text of a value of any depth: `JSON.stringify` (fast, native) unless the value nests deeper
 * than `safeDepth`, which only a payload stored before decision 118 may; then the iterative canonical
 * form, which PostgreSQL reads as the same value. The depth is measured first because a stringify that
 * overflows the stack takes seconds to unwind.
 */
export function jsonText(value: JsonValue): string {
  return jsonDepth(value, safeDepth) > safeDepth ? canonicalJson(value) : JSON.stringify(value);
}

/**
 * Whether two JSON values are equal, object keys in any order: what comparing their canonical texts
 * says, without writing them. The fold compares a size at every event (decision 411), so this walks
 * both values side by side with its own stack and stops at the first difference.
 */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
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
