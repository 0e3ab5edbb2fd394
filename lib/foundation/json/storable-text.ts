import type { FieldError } from "../errors/svc-error.ts";

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

/** Refusals reported at most per value: a body full of bad strings is told about the first ones. */
export const maxTextErrors = 20;

/** A value still to look at, or a refusal of a member name waiting for its turn in document order. */
type Step = { value: unknown; loc: string } | { refusal: FieldError };

/**
 * The text guard (decision 16): every string and member name in a JSON value that PostgreSQL could
 * not store (U+0000, a lone surrogate), located under `loc` in document order, at most `maxTextErrors`.
 * Walked with its own stack, so a value nested deeper than the call stack reaches is no risk. A member
 * name is located with its escape text (`storableText`), so the location itself can be stored and sent.
 */
export function unstorableTextErrors(value: unknown, loc: string): FieldError[] {
  const errors: FieldError[] = [];
  const todo: Step[] = [{ value, loc }];
  while (todo.length > 0 && errors.length < maxTextErrors) {
    const step = todo.pop() as Step;
    if ("refusal" in step) {
      errors.push(step.refusal);
      continue;
    }
    const { value: item, loc: at } = step;
    if (typeof item === "string") {
      const problem = unstorableIn(item);
      if (problem !== null) errors.push({ loc: at, msg: unstorableMessage(problem) });
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) todo.push({ value: item[i], loc: `${at}.${i}` });
    } else if (typeof item === "object" && item !== null) {
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const problem = unstorableIn(key);
        todo.push(
          problem === null
            ? { value: (item as Record<string, unknown>)[key], loc: `${at}.${key}` }
            : {
                refusal: {
                  loc: `${at}.${storableText(key)}`,
                  msg: `has a member name that ${unstorableMessage(problem)}`,
                },
              },
        );
      }
    }
  }
  return errors;
}
