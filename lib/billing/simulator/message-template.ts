import type { JsonValue } from "../../foundation/json/json-value.ts";

/** A member whose value is computed for each notification; everything else in a spec is constant. */
class Hole<I> {
  constructor(readonly of: (input: I) => JsonValue) {}
}

export function hole<I>(of: (input: I) => JsonValue): Hole<I> {
  return new Hole(of);
}

/**
 * A JSON document with holes: what one kind of notification looks like, with the members that differ
 * from one notification to the next left as holes. One spec gives both the message as an object and
 * its serialized text, so the two can never disagree (decision 248).
 */
export type Spec<I> =
  | string
  | number
  | boolean
  | null
  | Hole<I>
  | readonly Spec<I>[]
  | { readonly [key: string]: Spec<I> };

/** The JSON value of `spec` for one input. */
export function evaluate<I>(spec: Spec<I>, input: I): JsonValue {
  if (spec instanceof Hole) return spec.of(input);
  if (spec === null || typeof spec !== "object") return spec;
  if (Array.isArray(spec)) return spec.map((s: Spec<I>) => evaluate(s, input));
  const out: { [key: string]: JsonValue } = {};
  for (const [key, member] of Object.entries(spec as { readonly [key: string]: Spec<I> })) {
    out[key] = evaluate(member, input);
  }
  return out;
}

/** JSON string escaping of a text `times` over, each time as the inside of a JSON string. */
function escapeTimes(text: string, times: number): string {
  let out = text;
  for (let i = 0; i < times; i++) out = JSON.stringify(out).slice(1, -1);
  return out;
}

/** Characters JSON.stringify writes other than as themselves; a string without them needs no escaping at any depth. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes.
const needsEscape = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Builds a spec's value from its hole values. */
type Builder = (values: readonly JsonValue[]) => JsonValue;

/**
 * A spec's builder, its holes numbered in document order as `TextTemplate` numbers them: the members'
 * names and builders are looked up once, not walked per message.
 */
function compileBuilder<I>(spec: Spec<I>, hole: { next: number }): Builder {
  if (spec instanceof Hole) {
    const at = hole.next++;
    return (values) => values[at] as JsonValue;
  }
  if (spec === null || typeof spec !== "object") return () => spec;
  if (Array.isArray(spec)) {
    const items = spec.map((s: Spec<I>) => compileBuilder(s, hole));
    return (values) => {
      const out = new Array<JsonValue>(items.length);
      for (let i = 0; i < items.length; i++) out[i] = (items[i] as Builder)(values);
      return out;
    };
  }
  const entries = Object.entries(spec as { readonly [key: string]: Spec<I> });
  const keys = entries.map(([key]) => key);
  const members = entries.map(([, member]) => compileBuilder(member, hole));
  return (values) => {
    const out: { [key: string]: JsonValue } = {};
    for (let i = 0; i < keys.length; i++) out[keys[i] as string] = (members[i] as Builder)(values);
    return out;
  };
}

/** Where `utf8` writes; it grows to the largest text written. */
let scratch = Buffer.allocUnsafe(1 << 16);

/**
 * A spec compiled to the text between its holes, escaped for a nesting depth: depth 1 is plain JSON,
 * depth 2 JSON inside a JSON string (an oslo envelope's `oslo.message`), depth 3 that envelope inside
 * a JSON string again (a line of `notifications.jsonl`). Filling it gives exactly the bytes of
 * serializing the evaluated spec and escaping the result depth − 1 times, with one concatenation per
 * piece instead of a serialization and escapes of the whole text per notification.
 */
export class TextTemplate<I> {
  readonly holes: Hole<I>[] = [];
  private readonly pieces: string[] = [];
  private readonly quote: string;
  private encodedPieces: Buffer[] | null = null;
  private encodedQuote: Buffer | null = null;
  private builder: Builder | null = null;

  constructor(
    private readonly spec: Spec<I>,
    private readonly depth: number,
    frame: { prefix?: string; suffix?: string } = {},
  ) {
    this.quote = escapeTimes('"', depth - 1);
    let text = frame.prefix ?? "";
    const constant = (json: string) => {
      text += escapeTimes(json, depth - 1);
    };
    const walk = (s: Spec<I>): void => {
      if (s instanceof Hole) {
        this.pieces.push(text);
        this.holes.push(s);
        text = "";
      } else if (s === null || typeof s !== "object") constant(JSON.stringify(s));
      else if (Array.isArray(s)) {
        constant("[");
        s.forEach((member: Spec<I>, i: number) => {
          if (i > 0) constant(",");
          walk(member);
        });
        constant("]");
      } else {
        constant("{");
        Object.entries(s as { readonly [key: string]: Spec<I> }).forEach(([key, member], i) => {
          constant(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`);
          walk(member);
        });
        constant("}");
      }
    };
    walk(spec);
    this.pieces.push(text + (frame.suffix ?? ""));
  }

  /** The holes' values for one input, in the order `text` and `object` take them. */
  values(input: I): JsonValue[] {
    const values = new Array<JsonValue>(this.holes.length);
    for (let i = 0; i < this.holes.length; i++) values[i] = (this.holes[i] as Hole<I>).of(input);
    return values;
  }

  /**
   * The bytes of `text(values)` as UTF-8, in a buffer every template shares: valid until the next call.
   * The file mode writes a line from them without building it as a string (decision 250): the usual
   * hole value, a string of printable ASCII or a number, is copied byte by byte as it is checked.
   */
  utf8(values: readonly JsonValue[]): Uint8Array {
    this.encodedPieces ??= this.pieces.map((piece) => Buffer.from(piece));
    this.encodedQuote ??= Buffer.from(this.quote);
    const pieces = this.encodedPieces;
    const quote = this.encodedQuote;
    let out = scratch;
    let at = 0;
    const room = (bytes: number) => {
      if (at + bytes <= out.length) return;
      const grown = Buffer.allocUnsafe(Math.max(out.length * 2, at + bytes));
      grown.set(out.subarray(0, at));
      out = grown;
      scratch = grown;
    };
    for (let i = 0; i <= values.length; i++) {
      const piece = pieces[i] as Buffer;
      room(piece.length);
      out.set(piece, at);
      at += piece.length;
      if (i === values.length) break;
      const value = values[i] as JsonValue;
      const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
      if (typeof text === "string") {
        // A number's digits go bare; a string's between quotes escaped for the depth.
        const bare = text !== value;
        const start = at;
        room(text.length + 2 * quote.length);
        if (!bare) {
          out.set(quote, at);
          at += quote.length;
        }
        let plain = true;
        for (let k = 0; k < text.length; k++) {
          const c = text.charCodeAt(k);
          // Printable ASCII but the quote and the backslash is written as itself at any depth.
          if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
            plain = false;
            break;
          }
          out[at++] = c;
        }
        if (plain) {
          if (!bare) {
            out.set(quote, at);
            at += quote.length;
          }
          continue;
        }
        at = start;
      }
      const encoded = this.encode(value);
      room(encoded.length * 3);
      at += out.write(encoded, at);
    }
    return out.subarray(0, at);
  }

  text(values: readonly JsonValue[]): string {
    const pieces = this.pieces;
    let out = pieces[0] as string;
    for (let i = 0; i < values.length; i++) out += this.encode(values[i] as JsonValue) + pieces[i + 1];
    return out;
  }

  /** The evaluated spec with these hole values. */
  object(values: readonly JsonValue[]): JsonValue {
    this.builder ??= compileBuilder(this.spec, { next: 0 });
    return this.builder(values);
  }

  private encode(value: JsonValue): string {
    if (typeof value === "string") {
      if (!needsEscape.test(value)) return this.quote + value + this.quote;
    } else if (typeof value === "number") {
      if (Number.isFinite(value)) return String(value);
    } else if (value === null) return "null";
    else if (typeof value === "boolean") return value ? "true" : "false";
    return escapeTimes(JSON.stringify(value), this.depth - 1);
  }
}
