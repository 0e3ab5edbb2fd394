/**
 * Requests for netview made from its own OpenAPI document (the fuzz test of issue 28): each picks an
 * operation, fills its path parameters, query parameters and JSON body from what the document says
 * they take, with real values (ids, names, tables and columns of the NB schema), values at and past
 * their bounds, and text a server must refuse (NUL, lone surrogates, escapes, very long strings).
 * Write operations get rows of real NB tables and columns, so a bad value reaches the schema checks
 * rather than stopping at the first unknown name. Seeded: a failure names a request that can be sent
 * again. Not imported by any program.
 */
import fc from "fast-check";
import type { BaseType, DatabaseSchema } from "../../lib/network/ovsdb/schema.ts";

type Json = Record<string, unknown>;

export interface FuzzRequest {
  method: string;
  /** The operation's path template, for the report. */
  template: string;
  path: string;
  /** A JSON body, or raw text sent as it is (a body that is not JSON). */
  body?: { json: unknown } | { raw: string };
}

export interface FuzzPools {
  /** Real values of path parameters by name (`uuid`, `id`, `name`, `chassis`, `table`, `db`, ...). */
  params: Record<string, readonly string[]>;
  /** Names a body member may hold: switches, ports, routers, chassis, snapshot ids. */
  names: readonly string[];
  nb: DatabaseSchema;
}

export interface FuzzOperation {
  method: string;
  template: string;
  query: { name: string; schema: Json; required: boolean }[];
  body: Json | undefined;
}

/** The operations of a served document, as the generator reads them. */
export function fuzzOperations(document: { paths: Record<string, Record<string, Json>> }): FuzzOperation[] {
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const parameters = (op.parameters ?? []) as {
        name: string;
        in: string;
        schema?: Json;
        required?: boolean;
      }[];
      const content = (op.requestBody as { content?: Record<string, { schema?: Json }> } | undefined)
        ?.content;
      return {
        method: method.toUpperCase(),
        template,
        query: parameters
          .filter((p) => p.in === "query")
          .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: p.required === true })),
        body: content?.["application/json"]?.schema,
      };
    }),
  );
}

/** Text a server must take or refuse cleanly. */
export const nastyStrings = [
  "",
  " ",
  "x",
  "a\u0000b",
  "\u0000",
  "\ud800",
  "x\udfff",
  "\udc00\ud800",
  "😀",
  "é\u0301",
  "\n\r\t",
  "../../etc/passwd",
  "%00",
  "%ZZ",
  "'; drop table x; --",
  "<script>alert(1)</script>",
  "$\u007bjndi:ldap://x}",
  "-1",
  "0",
  "1e309",
  "NaN",
  "00000000-0000-0000-0000-000000000000",
  "@ref",
  "@",
  "\\u0000",
  "x".repeat(70),
  "y".repeat(5000),
];

const nasty = fc.constantFrom(...nastyStrings);
const anyText = fc.oneof(nasty, fc.string({ unit: "binary", maxLength: 12 }), fc.string({ maxLength: 8 }));

function numberFor(schema: Json): fc.Arbitrary<number> {
  const min = typeof schema.minimum === "number" ? schema.minimum : undefined;
  const max = typeof schema.maximum === "number" ? schema.maximum : undefined;
  const edges = [
    0,
    -1,
    1,
    2 ** 31,
    2 ** 53,
    -(2 ** 53),
    ...(min === undefined ? [] : [min, min - 1]),
    ...(max === undefined ? [] : [max, max + 1]),
  ];
  return fc.oneof(fc.constantFrom(...edges), fc.integer(), fc.double({ noNaN: true }));
}

/** A value of `schema`, or near it, or not of it at all. */
export function valueFor(
  schema: Json | undefined,
  names: readonly string[],
  depth = 0,
): fc.Arbitrary<unknown> {
  const junk = depth > 3 ? fc.oneof(anyText, fc.integer(), fc.constant(null)) : fc.jsonValue({ maxDepth: 2 });
  if (schema === undefined) return junk;
  const named = names.length > 0 ? fc.constantFrom(...names) : anyText;
  const fitting = (): fc.Arbitrary<unknown> => {
    if ("const" in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    const variants = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
    if (variants !== undefined) return fc.oneof(...variants.map((v) => valueFor(v, names, depth + 1)));
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case "string":
        return fc.oneof(named, anyText);
      case "integer":
      case "number":
        return numberFor(schema);
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array":
        return fc.array(valueFor(schema.items as Json | undefined, names, depth + 1), { maxLength: 4 });
      case "object": {
        const properties = (schema.properties ?? {}) as Record<string, Json>;
        const known = Object.entries(properties).map(([k, v]) => [k, valueFor(v, names, depth + 1)] as const);
        const members = fc.record(Object.fromEntries(known), { requiredKeys: [] });
        const extra = fc.dictionary(anyText, junk, { maxKeys: 2 });
        return fc.tuple(members, extra, fc.boolean()).map(([m, e, more]) => (more ? { ...e, ...m } : m));
      }
      default:
        return junk;
    }
  };
  return fc.oneof({ arbitrary: fitting(), weight: 4 }, { arbitrary: junk, weight: 1 });
}

/** One row operation on a real NB table, with real columns holding values near their types. */
function writeOperation(nb: DatabaseSchema, names: readonly string[]): fc.Arbitrary<unknown> {
  const tables = Object.values(nb.tables);
  const ref = fc.constantFrom("ls", "p", "x", "1bad");
  const target = fc.oneof(
    fc.record({ uuid: fc.oneof(fc.constantFrom(...names), fc.constant("@ls"), anyText) }),
    fc.record({ name: fc.oneof(fc.constantFrom(...names), anyText) }),
  );
  return fc.constantFrom(...tables).chain((table) => {
    const columns = table.columnNames.length > 0 ? table.columnNames : ["name"];
    /** An atom of the column's base type, within the schema's rules most of the time. */
    const atom = (base: BaseType): fc.Arbitrary<unknown> => {
      if (base.enum !== undefined)
        return fc.oneof(
          { arbitrary: fc.constantFrom(...base.enum), weight: 4 },
          { arbitrary: anyText, weight: 1 },
        );
      switch (base.type) {
        case "integer":
          return fc.oneof(
            { arbitrary: fc.integer({ min: base.minimum ?? 0, max: base.maximum ?? 65535 }), weight: 4 },
            { arbitrary: numberFor(base as unknown as Json), weight: 1 },
          );
        case "real":
          return fc.double();
        case "boolean":
          return fc.boolean();
        case "uuid":
          return fc.oneof(fc.constantFrom(...names), fc.constant("@ls"), anyText);
        default:
          return fc.oneof(fc.constantFrom(...names), anyText);
      }
    };
    const value = (column: string): fc.Arbitrary<unknown> => {
      const type = table.columns[column]?.type;
      if (type === undefined) return fc.jsonValue({ maxDepth: 1 });
      const one = atom(type.key);
      const values =
        type.value !== undefined
          ? fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), nasty), atom(type.value), { maxKeys: 3 })
          : type.max > 1
            ? fc.array(one, { maxLength: type.key.type === "uuid" ? 1 : 3 })
            : type.min === 0
              ? fc.oneof(one, fc.constant(null))
              : one;
      return fc.oneof(
        { arbitrary: values, weight: 8 },
        { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
      );
    };
    const row = fc
      .uniqueArray(fc.constantFrom(...columns), { maxLength: 4 })
      .chain((picked) =>
        fc
          .tuple(...picked.map((c) => value(c)))
          .map((vs) => Object.fromEntries(picked.map((c, i) => [c, vs[i]]))),
      );
    return fc.oneof(
      fc.record(
        { op: fc.constant("insert"), table: fc.constant(table.name), row, ref },
        { requiredKeys: ["op", "table", "row"] },
      ),
      fc.tuple(target, row).map(([t, set]) => ({ op: "update", table: table.name, ...t, set })),
      target.map((t) => ({ op: "delete", table: table.name, ...t })),
    );
  });
}

/** The body of preview and dry-run: a plan of real-looking operations, or anything else. */
function writeBody(pools: FuzzPools): fc.Arbitrary<unknown> {
  const plan = fc.record(
    {
      operations: fc.oneof(
        {
          arbitrary: fc.array(writeOperation(pools.nb, pools.names), { minLength: 1, maxLength: 1 }),
          weight: 3,
        },
        {
          arbitrary: fc.array(writeOperation(pools.nb, pools.names), { minLength: 1, maxLength: 4 }),
          weight: 1,
        },
      ),
      description: anyText,
      cluster: fc.constantFrom("default", "default", "default", "nope", "\u0000"),
    },
    { requiredKeys: ["operations"] },
  );
  return fc.oneof({ arbitrary: plan, weight: 6 }, { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 });
}

/** Bodies that are not JSON a parser takes: broken, not UTF-8 looking, deep, or wrong in kind. */
const rawBodies = fc.constantFrom(
  "{",
  "not json",
  "[]",
  "null",
  '"\\ud800"',
  '{"operations":[{"op":"insert","table":"Logical_Switch","row":{"name":"\\u0000"}}]}',
  `${"[".repeat(5000)}${"]".repeat(5000)}`,
  '{"a":1,"a":2}',
);

function query(op: FuzzOperation, names: readonly string[]): fc.Arbitrary<string> {
  const value = (schema: Json): fc.Arbitrary<string> => {
    const inner = (schema.type === "array" ? schema.items : schema) as Json;
    return valueFor(inner, names).map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? "")));
  };
  const pairs = op.query.map((p) =>
    fc.oneof(
      { arbitrary: fc.constant([] as [string, string][]), weight: p.required ? 1 : 3 },
      { arbitrary: value(p.schema).map((v) => [[p.name, v]] as [string, string][]), weight: 3 },
      {
        arbitrary: fc.tuple(value(p.schema), value(p.schema)).map(
          ([a, b]) =>
            [
              [p.name, a],
              [p.name, b],
            ] as [string, string][],
        ),
        weight: 1,
      },
    ),
  );
  const unknown = fc.oneof(
    { arbitrary: fc.constant([] as [string, string][]), weight: 9 },
    { arbitrary: fc.tuple(anyText, anyText).map(([k, v]) => [[k, v]] as [string, string][]), weight: 1 },
  );
  return fc.tuple(fc.tuple(...pairs), unknown).map(([lists, extra]) => {
    const all = [...lists.flat(), ...extra];
    return all.length === 0
      ? ""
      : `?${all.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join("&")}`;
  });
}

/**
 * Percent-encoding of any string, lone surrogates included (as their WTF-8 bytes, which no UTF-8
 * decoder takes: what a careless client sends).
 */
export function percentEncode(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (/[A-Za-z0-9\-_.~]/.test(char)) {
      out += char;
      continue;
    }
    const bytes =
      code < 0x80
        ? [code]
        : code < 0x800
          ? [0xc0 | (code >> 6), 0x80 | (code & 63)]
          : code < 0x10000
            ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
            : [
                0xf0 | (code >> 18),
                0x80 | ((code >> 12) & 63),
                0x80 | ((code >> 6) & 63),
                0x80 | (code & 63),
              ];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  }
  return out;
}

function pathOf(template: string, pools: FuzzPools): fc.Arbitrary<string> {
  const slots = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const fill = slots.map((name) => {
    const real = pools.params[name] ?? [];
    return fc.oneof(
      { arbitrary: real.length > 0 ? fc.constantFrom(...real) : anyText, weight: 3 },
      { arbitrary: anyText, weight: 1 },
    );
  });
  return fc.tuple(...fill).map((values) => {
    let i = 0;
    // A "." or ".." segment is a dot segment however it is written: the URL drops it before routing.
    const segment = (text: string) => (/^\.\.?$/.test(text) ? `${text}x` : percentEncode(text) || "x");
    return template.replace(/\{[^}]+\}/g, () => segment(String(values[i++] ?? "x")));
  });
}

/**
 * Requests over every operation of the document; the operations that send what they are given to
 * ovsdb-server (preview, dry-run) `writeWeight` times as often as another.
 */
export function fuzzRequests(
  operations: readonly FuzzOperation[],
  pools: FuzzPools,
  writeWeight = 15,
): fc.Arbitrary<FuzzRequest> {
  const writes = (op: FuzzOperation) => op.template.endsWith("/preview") || op.template.endsWith("/dry-run");
  const picked = fc.oneof(
    ...operations.map((op) => ({ arbitrary: fc.constant(op), weight: writes(op) ? writeWeight : 1 })),
  );
  return picked.chain((op) => {
    const body =
      op.method === "GET" || op.method === "DELETE"
        ? fc.constant(undefined)
        : fc.oneof(
            {
              arbitrary: (writes(op) ? writeBody(pools) : valueFor(op.body, pools.names)).map((json) => ({
                json,
              })),
              weight: 8,
            },
            { arbitrary: rawBodies.map((raw) => ({ raw })), weight: 1 },
            { arbitrary: fc.constant(undefined), weight: 1 },
          );
    return fc.tuple(pathOf(op.template, pools), query(op, pools.names), body).map(([path, q, b]) => ({
      method: op.method,
      template: op.template,
      path: `${path}${q}`,
      ...(b === undefined ? {} : { body: b }),
    }));
  });
}
