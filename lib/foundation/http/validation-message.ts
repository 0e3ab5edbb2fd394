import type { TSchema } from "@sinclair/typebox";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { readInstant } from "../time/instant.ts";

/**
 * What a caller reads when a request part breaks its schema (decision 17): each message completes
 * "<member> …" and says what the member accepts, read from the schema itself, so `interval` answers
 * "must be one of 1h, 1d" instead of TypeBox's "Expected union value". One mapping for every server:
 * the reporting contract's reader and Elysia's own validation (netview, the simulator) both use it.
 */

/** The part of a TypeBox value error the message is made from (Elysia's errors carry the same). */
export interface SchemaIssue {
  type: number;
  schema: TSchema;
  value: unknown;
  message: string;
}

type Schema = Record<string, unknown>;

const formats: Record<string, string> = {
  "date-time": "an RFC 3339 date-time with an offset, such as 2026-11-01T10:00:00Z",
  uuid: "a UUID (8-4-4-4-12 hexadecimal digits)",
};

/** Elysia widens a numeric or boolean query schema to a union with a string of this format. */
const coercionFormats = new Set(["integer", "numeric", "boolean", "ObjectString", "ArrayString"]);

function quoted(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function range(low: unknown, high: unknown, unit: string): string {
  const suffix = unit === "" ? "" : ` ${unit}`;
  if (typeof low === "number" && typeof high === "number") return ` of ${low} to ${high}${suffix}`;
  if (typeof low === "number") return ` of at least ${low}${suffix}`;
  if (typeof high === "number") return ` of at most ${high}${suffix}`;
  return "";
}

function numberRange(s: Schema): string {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = s;
  if (typeof minimum === "number" && typeof maximum === "number") return ` from ${minimum} to ${maximum}`;
  const parts: string[] = [];
  if (typeof minimum === "number") parts.push(`at least ${minimum}`);
  if (typeof exclusiveMinimum === "number") parts.push(`above ${exclusiveMinimum}`);
  if (typeof maximum === "number") parts.push(`at most ${maximum}`);
  if (typeof exclusiveMaximum === "number") parts.push(`below ${exclusiveMaximum}`);
  return parts.length === 0 ? "" : ` ${parts.join(" and ")}`;
}

function stringAccepts(s: Schema): string {
  if (s.const !== undefined) return quoted(s.const);
  if (typeof s.format === "string" && formats[s.format] !== undefined) return formats[s.format] as string;
  let text = `a string${range(s.minLength, s.maxLength, "characters")}`;
  if (typeof s.pattern === "string") text += ` matching ${s.pattern}`;
  return text;
}

function unionMembers(s: Schema): Schema[] {
  const members = ((s.anyOf ?? s.oneOf) as Schema[] | undefined) ?? [];
  const kept = members.filter((m) => !(m.type === "string" && coercionFormats.has(m.format as string)));
  // Elysia puts the numeric bounds beside the union: carry them into its members.
  const bounds = Object.fromEntries(
    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].flatMap((k) =>
      s[k] === undefined ? [] : [[k, s[k]]],
    ),
  );
  return (kept.length > 0 ? kept : members).map((m) => ({ ...bounds, ...m }));
}

/** What a schema accepts, as a phrase: "an integer from 1 to 1000", "one of 1h, 1d", "a string or null". */
export function accepts(schema: TSchema): string {
  const s = schema as Schema;
  if (s.anyOf !== undefined || s.oneOf !== undefined) {
    const members = unionMembers(s);
    if (members.length > 1 && members.every((m) => m.const !== undefined)) {
      return `one of ${members.map((m) => quoted(m.const)).join(", ")}`;
    }
    return [...new Set(members.map((m) => accepts(m as TSchema)))].join(" or ");
  }
  if (s.const !== undefined) return quoted(s.const);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map(quoted).join(", ")}`;
  switch (s.type) {
    case "string":
      return stringAccepts(s);
    case "integer":
      return `an integer${numberRange(s)}`;
    case "number":
      return `a number${numberRange(s)}`;
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "array":
      return `an array${range(s.minItems, s.maxItems, "items")}`;
    case "object":
      return "an object";
    default:
      return "a JSON value";
  }
}

function memberNames(s: Schema): string {
  const names = Object.keys((s.properties as Schema | undefined) ?? {});
  return names.length === 0 ? "it takes no members" : `its members are ${names.join(", ")}`;
}

/** The date-time reader's own refusal when `schema` (or the union's only string member) is a date-time. */
function dateTimeRefusal(schema: Schema, value: unknown): string | null {
  if (typeof value !== "string") return null;
  const strings =
    schema.anyOf === undefined ? [schema] : unionMembers(schema).filter((m) => m.type === "string");
  const [only] = strings;
  if (strings.length !== 1 || only?.format !== "date-time") return null;
  const reading = readInstant(value);
  return reading.ok ? null : reading.refusal;
}

/** The message for one TypeBox (or Elysia) validation issue, completing "<member> …". */
export function describeIssue(issue: SchemaIssue): string {
  switch (issue.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `is required: ${accepts(issue.schema)}`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `is not a member (${memberNames(issue.schema as Schema)})`;
    default:
      return dateTimeRefusal(issue.schema as Schema, issue.value) ?? `must be ${accepts(issue.schema)}`;
  }
}
