import fc from "fast-check";
import { isRfc3339 } from "../../lib/foundation/time/instant.ts";

/**
 * Requests for a fuzz test, generated from a served OpenAPI document (3.0 or 3.1): every operation,
 * each path and query parameter and the JSON body from its schema. Half the requests are clean: every
 * value one the schema admits, edges included (a date-time at +23:59, in year 9999, with nine digits of
 * fraction), so the request reaches the handler and the database behind it. The other half are dirty:
 * values just outside the schema and hostile ones a JSON body or a URL can carry (U+0000, lone
 * surrogates, offsets past ±23:59, years that shift out of range, 200-digit fractions, long text,
 * wrong types, unknown members, deep nesting, bytes that are not UTF-8, other media types). `hints`
 * give plausible values by member or parameter name (a known project id, the platform the credential
 * covers), so requests get past the first refusal often enough to test the rest.
 */

type Json = Record<string, unknown>;

export interface FuzzOperation {
  method: string;
  /** OpenAPI form: `/api/v1/projects/{id}`. */
  path: string;
  security: string | null;
  parameters: { name: string; in: "path" | "query"; required: boolean; schema: Json }[];
  body: Json | null;
}

interface FuzzRequest {
  op: FuzzOperation;
  method: string;
  /** Path and query, encoded. */
  url: string;
  body: string | Uint8Array | undefined;
  contentType: string | null;
}

export type Hints = Record<string, readonly unknown[]>;

const methods = ["get", "post", "put", "patch", "delete"];

/** Every operation of the document, with its `$ref`s resolved against its components. */
export function fuzzOperations(document: Json): FuzzOperation[] {
  const ops: FuzzOperation[] = [];
  const resolve = (schema: Json): Json => resolveRef(document, schema);
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of methods) {
      const op = item[method] as Json | undefined;
      if (op === undefined) continue;
      const security = (op.security ?? document.security ?? []) as Record<string, unknown>[];
      const parameters = ((op.parameters ?? []) as Json[])
        .map((p) => resolve(p))
        .filter((p) => p.in === "path" || p.in === "query")
        .map((p) => ({
          name: p.name as string,
          in: p.in as "path" | "query",
          required: p.required === true,
          schema: resolve((p.schema ?? {}) as Json),
        }));
      const content = (resolve((op.requestBody ?? {}) as Json).content ?? {}) as Record<string, Json>;
      const json = content["application/json"];
      ops.push({
        method: method.toUpperCase(),
        path,
        security: Object.keys(security[0] ?? {})[0] ?? null,
        parameters,
        body: json === undefined ? null : resolve((json.schema ?? {}) as Json),
      });
    }
  }
  return ops;
}

function resolveRef(document: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; i < 16 && typeof s.$ref === "string"; i++) {
    const steps = (s.$ref as string).replace(/^#\//, "").split("/");
    s = steps.reduce<Json>((at, step) => (at[step] ?? {}) as Json, document);
  }
  return s;
}

/** Strings the database, a URL or a parser may choke on. */
const hostileText = fc.constantFrom(
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "😀\ud83d",
  "\ufffe\uffff",
  "%00",
  "%zz",
  "../..",
  "null",
  "true",
  "-1",
  "1e309",
  "NaN",
  "9".repeat(400),
  "x".repeat(5000),
  "ǅ\u0301\u200b",
  "{}",
  "[]",
  "'; drop table events; --",
);

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** Date-times: mostly near now with any offset RFC 3339 allows, some at the edges of what is taken. */
const dateTimeText: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 11, 31) }),
      fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
      fc.constantFrom("", ".5", ".123", ".123456", ".123456789"),
      fc.constantFrom("T", "t", " "),
    )
    .map(([ms, offset, fraction, separator]) => {
      const local = new Date(ms + offset * 60_000).toISOString();
      const zone =
        offset === 0
          ? "Z"
          : `${offset < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
      return `${local.slice(0, 10)}${separator}${local.slice(11, 19)}${fraction}${zone}`;
    }),
  fc.constantFrom(
    "0001-01-01T00:00:00+01:00",
    "0001-01-01T00:00:00Z",
    "0000-12-31T23:00:00-01:00",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:00:00-01:00",
    "9999-12-31T23:59:59.999Z",
    "2026-01-01T00:00:00+16:00",
    "2026-01-01T00:00:00-23:59",
    "2026-01-01T00:00:00+24:00",
    "2026-01-01T00:00:00+99:99",
    `2026-01-01T00:00:00.${"1".repeat(200)}Z`,
    "2026-01-01T00:00:00.1234567890Z",
    "2026-02-30T00:00:00Z",
    "2026-12-31T23:59:60Z",
    "2026-11-01",
    "2026-11-01T00:00:00",
    "+002026-11-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
  ),
);

/** The date-times above that RFC 3339 and the years 0001 to 9999 admit: the edges a handler must carry. */
const admittedDateTimeText = dateTimeText.filter(isRfc3339);

function typesOf(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === "string") return [schema.type];
  return [];
}

/**
 * `clean` values keep to the schema (and take a hint where there is one), so that a whole request is
 * admitted and its values reach the handler and the database; `dirty` ones mix in values just outside
 * the schema, wrong types and hostile text.
 */
type Mode = "clean" | "dirty";

interface Context {
  hints: Hints;
  mode: Mode;
}

/** Values for a schema in the context's mode. Depth bounds the nesting it builds. */
function valueFor(
  document: Json,
  schema: Json,
  name: string,
  context: Context,
  depth = 0,
): fc.Arbitrary<unknown> {
  const { hints, mode } = context;
  const s = resolveRef(document, schema);
  const hinted = hints[name];
  if (mode === "clean" && hinted !== undefined && hinted.length > 0) return fc.constantFrom(...hinted);
  const options: fc.Arbitrary<unknown>[] = [];
  const members = (s.anyOf ?? s.oneOf ?? s.allOf) as Json[] | undefined;
  if (members !== undefined) {
    for (const m of members) options.push(valueFor(document, m, name, context, depth));
  }
  if (s.nullable === true || typesOf(s).includes("null")) options.push(fc.constant(null));
  if (Array.isArray(s.enum)) options.push(fc.constantFrom(...(s.enum as unknown[])));
  else {
    for (const type of typesOf(s)) {
      if (type === "string") options.push(stringFor(s, mode));
      else if (type === "integer" || type === "number") options.push(numberFor(s, type, mode));
      else if (type === "boolean") options.push(fc.boolean());
      else if (type === "array" && depth < 4) options.push(arrayFor(document, s, name, context, depth));
      else if (type === "object" && depth < 4) options.push(objectFor(document, s, context, depth));
    }
  }
  if (options.length === 0) {
    options.push(depth < 3 ? (mode === "clean" ? cleanJson : anyJson) : fc.constant("leaf"));
  }
  if (mode === "clean") return fc.oneof(...options);
  const weighted: fc.WeightedArbitrary<unknown>[] = [{ arbitrary: fc.oneof(...options), weight: 8 }];
  if (hinted !== undefined && hinted.length > 0) {
    weighted.push({ arbitrary: fc.constantFrom(...hinted), weight: 6 });
  }
  weighted.push({ arbitrary: hostileText, weight: 2 });
  weighted.push({
    arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.constant({}), fc.constant([])),
    weight: 1,
  });
  return fc.oneof(...weighted);
}

function stringFor(s: Json, mode: Mode): fc.Arbitrary<string> {
  const clean = mode === "clean";
  if (s.format === "date-time") return clean ? admittedDateTimeText : dateTimeText;
  if (s.format === "uuid") {
    return clean
      ? fc.uuid()
      : fc.oneof(fc.uuid(), fc.constantFrom("00000000-0000-0000-0000-000000000000", "x"));
  }
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : 64;
  if (clean) {
    if (typeof s.pattern === "string") {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= max);
    }
    return fc.string({ unit: "grapheme", minLength: Math.max(min, 1), maxLength: Math.min(max, 24) });
  }
  return fc.oneof(
    fc.string({ minLength: Math.min(min, 8), maxLength: Math.min(max, 24) }),
    fc.string({ unit: "grapheme", maxLength: 12 }),
    fc.constantFrom("a".repeat(Math.max(min, 1)), "b".repeat(max), "c".repeat(max + 1)),
  );
}

function numberFor(s: Json, type: string, mode: Mode): fc.Arbitrary<number> {
  const min = typeof s.minimum === "number" ? s.minimum : -1000;
  const max = typeof s.maximum === "number" ? s.maximum : 1_000_000;
  const whole = fc.integer({ min: Math.max(min, -1e9), max: Math.min(max, 1e9) });
  if (mode === "clean") return whole;
  return fc.oneof(
    whole,
    fc.constantFrom(min - 1, max + 1, 0, -1, 2 ** 53, 1e308),
    type === "number" ? fc.double({ noNaN: true, noDefaultInfinity: true }) : fc.constant(1.5),
  );
}

function arrayFor(
  document: Json,
  s: Json,
  name: string,
  context: Context,
  depth: number,
): fc.Arbitrary<unknown[]> {
  const items = valueFor(document, (s.items ?? {}) as Json, name, context, depth + 1);
  const max = typeof s.maxItems === "number" ? s.maxItems : 8;
  const min = typeof s.minItems === "number" ? s.minItems : 0;
  const admitted = fc.array(items, { minLength: min, maxLength: Math.max(min, Math.min(max, 4)) });
  if (context.mode === "clean") return admitted;
  return fc.oneof(
    { arbitrary: admitted, weight: 8 },
    // Past maxItems, cheaply: the same item repeated.
    { arbitrary: items.map((item) => Array.from({ length: max + 1 }, () => item)), weight: 1 },
  );
}

function objectFor(document: Json, s: Json, context: Context, depth: number): fc.Arbitrary<Json> {
  const clean = context.mode === "clean";
  const properties = (s.properties ?? {}) as Record<string, Json>;
  const required = new Set((s.required ?? []) as string[]);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, schema] of Object.entries(properties)) {
    record[key] = valueFor(document, schema, key, context, depth + 1);
  }
  const requiredKeys = [...required].filter((k) => Object.hasOwn(properties, k));
  const known =
    Object.keys(record).length === 0
      ? fc.constant({} as Json)
      : clean
        ? (fc.record(record, { requiredKeys }) as fc.Arbitrary<Json>)
        : fc.oneof(
            { arbitrary: fc.record(record, { requiredKeys }) as fc.Arbitrary<Json>, weight: 6 },
            { arbitrary: fc.record(record, { requiredKeys: [] }) as fc.Arbitrary<Json>, weight: 1 },
          );
  const extra = s.additionalProperties;
  const open = extra !== false && Object.keys(properties).length === 0;
  const extraValue =
    extra !== undefined && typeof extra === "object"
      ? valueFor(document, extra as Json, "", context, depth + 1)
      : clean
        ? cleanJson
        : anyJson;
  const extras = fc.dictionary(
    clean ? fc.string({ maxLength: 8 }) : fc.oneof(fc.string({ maxLength: 8 }), hostileText),
    extraValue,
    { maxKeys: open ? 6 : 2 },
  );
  if (clean) return open ? extras : known;
  return fc
    .tuple(
      known,
      fc.oneof(
        { arbitrary: fc.constant({}), weight: open ? 1 : 6 },
        { arbitrary: extras, weight: open ? 6 : 1 },
      ),
    )
    .map(([a, b]) => ({ ...b, ...a }));
}

/** Any JSON value a database stores: text without NUL or lone surrogates. */
const cleanJson: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 3 })
  .map((v) => JSON.parse(JSON.stringify(v).replace(/\\u0000|\\ud[89a-f][0-9a-f]{2}/gi, "_")));

/** Any JSON value, with hostile strings and member names inside. */
const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 12 }),
    hostileText,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), hostileText), tie("value"), { maxKeys: 3 }),
  ),
})).value;

/** Percent-encodes text for a URL; a lone surrogate (which `encodeURIComponent` refuses) as the CESU-8 bytes a careless client sends. */
function urlText(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === "%zz") return text;
  let out = "";
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`;
    } else out += encodeURIComponent(char);
  }
  return out;
}

/** Bodies no schema describes: broken JSON, bytes that are not UTF-8, deep nesting, a form. */
const rawBodies = fc.constantFrom<{ body: string | Uint8Array; contentType: string | null }>(
  { body: "{", contentType: "application/json" },
  { body: '{"a":1}{"b":2}', contentType: "application/json" },
  { body: "", contentType: "application/json" },
  { body: "null", contentType: null },
  {
    body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    contentType: "application/json",
  },
  { body: new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]), contentType: "application/json" },
  { body: `${"[".repeat(100_000)}${"]".repeat(100_000)}`, contentType: "application/json" },
  { body: `${'{"a":'.repeat(70)}1${"}".repeat(70)}`, contentType: "application/json" },
  { body: "a=1&b=2", contentType: "application/x-www-form-urlencoded" },
  { body: '{"a":1}', contentType: "text/plain" },
);

/** One request for `op`, clean or dirty: its parameters and body from the schemas, now and then a raw body. */
export function requestFor(document: Json, op: FuzzOperation, hints: Hints): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom<Mode>("clean", "dirty").chain((mode) => requestIn(document, op, { hints, mode }));
}

type Body = { body: string | Uint8Array | undefined; contentType: string | null };

function requestIn(document: Json, op: FuzzOperation, context: Context): fc.Arbitrary<FuzzRequest> {
  const clean = context.mode === "clean";
  const params = fc.tuple(
    ...op.parameters.map((p) =>
      p.required
        ? valueFor(document, p.schema, p.name, context).map((v) => [p, v] as const)
        : fc
            .option(valueFor(document, p.schema, p.name, context), { freq: clean ? 1 : 2, nil: undefined })
            .map((v) => [p, v] as const),
    ),
  );
  const unknownQuery = clean
    ? fc.constant(undefined)
    : fc.option(fc.tuple(fc.oneof(fc.string({ maxLength: 6 }), hostileText), hostileText), {
        freq: 6,
        nil: undefined,
      });
  const json = (v: unknown): Body => ({ body: JSON.stringify(v), contentType: "application/json" });
  const body: fc.Arbitrary<Body> =
    op.body === null
      ? fc.constant({ body: undefined, contentType: null })
      : clean
        ? valueFor(document, op.body, "", context).map(json)
        : fc.oneof(
            { arbitrary: valueFor(document, op.body, "", context).map(json), weight: 12 },
            { arbitrary: rawBodies, weight: 1 },
          );
  return fc.tuple(params, unknownQuery, body).map(([values, unknown, b]) => {
    let path = op.path;
    const query: string[] = [];
    for (const [p, v] of values) {
      if (p.in === "path") path = path.replace(`{${p.name}}`, v === undefined ? "" : urlText(v));
      else if (v !== undefined) query.push(`${encodeURIComponent(p.name)}=${urlText(v)}`);
    }
    if (unknown !== undefined) query.push(`${urlText(unknown[0])}=${urlText(unknown[1])}`);
    return {
      op,
      method: op.method,
      url: query.length === 0 ? path : `${path}?${query.join("&")}`,
      body: b.body,
      contentType: b.contentType,
    };
  });
}
