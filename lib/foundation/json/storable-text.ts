/**
 * PostgreSQL `text` and `jsonb` hold neither U+0000 nor a lone UTF-16 surrogate (a `\ud800` escape
 * with no partner), both of which a JavaScript string and a JSON document can carry: sent to the
 * database they fail the statement (22P05, 22P02) and with it a whole batch.
 */

/** Any NUL or surrogate half, paired or not: one quick scan that almost every string passes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the two things looked for.
const suspect = /[\u0000\ud800-\udfff]/;
/** In a `u` regular expression a surrogate pair is one code point: only a lone half is `Cs`. */
const loneSurrogate = /\p{Cs}/u;

/** What keeps a string out of the database, or null when it can be stored. */
export function unstorableIn(value: string): "nul" | "surrogate" | null {
  if (!suspect.test(value)) return null;
  if (value.includes("\u0000")) return "nul";
  if (loneSurrogate.test(value)) return "surrogate";
  return null;
}

/** The refusal for a string `unstorableIn` named, completing "<member> …". */
export function unstorableMessage(problem: "nul" | "surrogate"): string {
  return problem === "nul"
    ? "must not contain the NUL character"
    : "must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)";
}

/**
 * A string the database can store and a reader can tell apart: U+0000 and each lone surrogate written
 * as their `\uXXXX` escape text. For what we write about a refused item (its event id in the dead
 * letter and the answer, a member name inside an error location), never for the event itself.
 */
export function storableText(value: string): string {
  if (unstorableIn(value) === null) return value;
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    const high = unit >= 0xd800 && unit <= 0xdbff;
    const low = unit >= 0xdc00 && unit <= 0xdfff;
    if (high && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += value.slice(i, i + 2);
        i++;
        continue;
      }
    }
    out += unit === 0 || high || low ? `\\u${unit.toString(16).padStart(4, "0")}` : value[i];
  }
  return out;
}

/** Where in a parsed JSON value the first unstorable string or member name is, and what is wrong. */
export interface UnstorableMember {
  /** `at` followed by the steps down to it: `.name` for a member, `[i]` for an element. */
  member: string;
  problem: "nul" | "surrogate";
  /** True when the member name itself is unstorable (it is written with `storableText` in `member`). */
  inName: boolean;
}

/**
 * The first string or member name in a parsed JSON value that `unstorableIn` refuses, walked in
 * document order with its own stack (a body may nest deeper than the call stack reaches), or null.
 */
export function unstorableMember(value: unknown, at: string): UnstorableMember | null {
  const todo: [unknown, string][] = [[value, at]];
  while (todo.length > 0) {
    const [item, where] = todo.pop() as [unknown, string];
    if (typeof item === "string") {
      const problem = unstorableIn(item);
      if (problem !== null) return { member: where, problem, inName: false };
      continue;
    }
    if (item === null || typeof item !== "object") continue;
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) todo.push([item[i], `${where}[${i}]`]);
      continue;
    }
    const keys = Object.keys(item);
    for (const key of keys) {
      const problem = unstorableIn(key);
      if (problem !== null) return { member: step(where, storableText(key)), problem, inName: true };
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      todo.push([(item as Record<string, unknown>)[key], step(where, key)]);
    }
  }
  return null;
}

/** The refusal for what `unstorableMember` found: "<member>: …". */
export function unstorableMemberMessage(found: UnstorableMember): string {
  return `${found.member}: ${found.inName ? "the member name " : ""}${unstorableMessage(found.problem)}`;
}

const step = (where: string, key: string) => (where === "" ? key : `${where}.${key}`);
