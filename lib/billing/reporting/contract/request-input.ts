import { FormatRegistry, type Static, type TObject, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import type { FieldError } from "../../../foundation/errors/svc-error.ts";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isRfc3339 } from "../../../foundation/time/instant.ts";

// The contract's two formats, set here (not left to whichever library registers first) so that what
// the document says `date-time` and `uuid` mean is what the server checks: an RFC 3339 instant with
// an explicit offset naming a real calendar date, and a UUID in its canonical text form.
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
    errors.push({ loc, msg: error.message });
  }
  return errors.sort((a, b) => (a.loc < b.loc ? -1 : a.loc > b.loc ? 1 : 0));
}

/**
 * Locations of strings (and member names) holding U+0000, which PostgreSQL cannot store or compare in
 * text or jsonb: refused here, once for every operation, so no parameter or body reaches the database
 * with one (it would fail the statement: a 500 for a caller's mistake).
 */
function nulErrors(value: unknown, loc: string, out: FieldError[] = []): FieldError[] {
  if (typeof value === "string") {
    if (value.includes("\u0000")) out.push({ loc, msg: "must not contain U+0000" });
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) nulErrors(v, `${loc}.${i}`, out);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key.includes("\u0000")) out.push({ loc, msg: "must not name a member with U+0000" });
      else nulErrors(v, `${loc}.${key}`, out);
    }
  }
  return out;
}

function refuse(part: Part, errors: FieldError[]): never {
  throw new ValidationError(`the request ${part} does not match the contract`, errors);
}

/** Checks `value` and hands it back typed; a violation (or a U+0000 anywhere) is the 400 validation problem. */
export function readPart<S extends TSchema>(schema: S, value: unknown, part: Part): Static<S> {
  const nul = nulErrors(value, part);
  if (nul.length > 0) refuse(part, nul);
  const errors = contractErrors(schema, value, part);
  if (errors.length > 0) refuse(part, errors);
  return value as Static<S>;
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
