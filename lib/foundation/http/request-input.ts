import { FormatRegistry, type Static, type TObject, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { compare } from "../collections/compare.ts";
import type { FieldError } from "../errors/svc-error.ts";
import { ValidationError } from "../errors/svc-error.ts";
import { unstorableTextErrors } from "../json/storable-text.ts";
import { isRfc3339, parseInstant } from "../time/instant.ts";
import { describeIssue } from "./validation-message.ts";

/**
 * The reader of a request's path, query and body against its TypeBox schema (decision 15): the one
 * place a caller's input is checked, so a route declares its schema and cannot forget a rule. In order:
 * the text guard (no string or member name PostgreSQL cannot store), the schema (every violation, each
 * message saying what the member accepts), then every `format: date-time` member is handed on in its
 * canonical UTC form, so no caller's date-time text ever reaches the database.
 */

// The contract's two formats, set here (not left to whichever library registers first) so that what
// a document says `date-time` and `uuid` mean is what the server checks: the one date-time reader, and
// a UUID in its canonical text form.
FormatRegistry.Set("date-time", isRfc3339);
FormatRegistry.Set("uuid", (value) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
);

export type Part = "path" | "query" | "body";

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerOf<S extends TSchema>(schema: S): TypeCheck<S> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check as TypeCheck<S>;
}

function locOf(part: Part, pointer: string): string {
  const members = pointer
    .split("/")
    .filter((s) => s !== "")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  return [part, ...members].join(".");
}

/** Every violation of `value` against `schema`, one per location (the first TypeBox names there), by location. */
export function contractErrors(schema: TSchema, value: unknown, part: Part): FieldError[] {
  const check = checkerOf(schema);
  if (check.Check(value)) return [];
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const error of check.Errors(value)) {
    const loc = locOf(part, error.path);
    if (seen.has(loc)) continue;
    seen.add(loc);
    errors.push({ loc, msg: describeIssue(error) });
  }
  return errors.sort((a, b) => compare(a.loc, b.loc));
}

type Schema = Record<string, unknown>;

/**
 * `value` (already checked against `schema`) with every date-time member in canonical form. Follows
 * the shapes a contract uses: objects, records, arrays and unions (a union's date-time member takes a
 * string the reader accepts).
 */
function canonicalDateTimes(schema: Schema, value: unknown): unknown {
  if (typeof value === "string") {
    const dateTime =
      schema.format === "date-time" ||
      ((schema.anyOf ?? []) as Schema[]).some((m) => m.type === "string" && m.format === "date-time");
    return dateTime ? (parseInstant(value) ?? value) : value;
  }
  if (typeof value !== "object" || value === null) return value;
  for (const member of (schema.anyOf ?? []) as Schema[]) {
    if (member.type === (Array.isArray(value) ? "array" : "object")) return canonicalDateTimes(member, value);
  }
  if (Array.isArray(value)) {
    const items = schema.items as Schema | undefined;
    return items === undefined ? value : value.map((v) => canonicalDateTimes(items, v));
  }
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const [rest] = Object.values((schema.patternProperties ?? {}) as Record<string, Schema>);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const member = Object.hasOwn(properties, key) ? properties[key] : rest;
    out[key] = member === undefined ? v : canonicalDateTimes(member, v);
  }
  return out;
}

/**
 * A path parameter the router matched but could not percent-decode (`%zz`, or bytes that are not
 * UTF-8) reaches us as null (Elysia) or undefined: said so, rather than as a mistyped member.
 */
function refuseUndecodable(schema: TSchema, params: unknown): void {
  const names = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  const given = (params ?? {}) as Record<string, unknown>;
  const errors = names
    .filter((name) => given[name] === undefined || given[name] === null)
    .map((name) => ({ loc: `path.${name}`, msg: "must be percent-encoded UTF-8 text" }));
  if (errors.length > 0) refuse("path", errors);
}

function refuse(part: Part, errors: FieldError[]): never {
  throw new ValidationError(`the request ${part} does not match the contract`, errors);
}

/**
 * Checks `value` and hands it back typed, date-times canonical; an unstorable string anywhere or a
 * violation of the schema is the 400 validation problem naming each member.
 */
export function readPart<S extends TSchema>(schema: S, value: unknown, part: Part): Static<S> {
  if (part === "path") refuseUndecodable(schema, value);
  const unstorable = unstorableTextErrors(value, part);
  if (unstorable.length > 0) refuse(part, unstorable);
  const errors = contractErrors(schema, value, part);
  if (errors.length > 0) refuse(part, errors);
  return canonicalDateTimes(schema as Schema, value) as Static<S>;
}

function typeNames(schema: TSchema | undefined): string[] {
  if (schema === undefined) return [];
  if (typeof schema.type === "string") return [schema.type];
  const union = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined;
  return union?.flatMap(typeNames) ?? [];
}

const integerText = /^-?\d{1,15}$/;

/**
 * The query string as the contract's object: integers and booleans are read from their plain text
 * form only (`1.5`, `1e3`, `0x10` stay text and fail the check), and a parameter given more than
 * once is refused rather than one of its values picked silently. Unknown parameters are refused by
 * the schemas (no additional properties), so a misspelt filter cannot widen an answer.
 */
export function readQuery<S extends TObject>(schema: S, url: URL): Static<S> {
  const query: Record<string, unknown> = {};
  const repeated: FieldError[] = [];
  for (const [name, text] of url.searchParams) {
    if (Object.hasOwn(query, name)) {
      if (!repeated.some((e) => e.loc === `query.${name}`))
        repeated.push({ loc: `query.${name}`, msg: "is given more than once" });
      continue;
    }
    const types = typeNames(schema.properties[name]);
    if (types.includes("integer") && integerText.test(text)) query[name] = Number(text);
    else if (types.includes("boolean") && (text === "true" || text === "false"))
      query[name] = text === "true";
    else query[name] = text;
  }
  if (repeated.length > 0) refuse("query", repeated);
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(query, name) && property.default !== undefined) query[name] = property.default;
  }
  return readPart(schema, query, "query");
}
