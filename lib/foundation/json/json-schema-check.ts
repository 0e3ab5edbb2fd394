import type { FieldError } from "../errors/svc-error.ts";
import type { JsonValue } from "./json-value.ts";

/**
 * Checks a JSON value against a JSON Schema of the subset the size schemas use: `type` (a name or a
 * list), `enum`, `const`, `required`, `properties`, `additionalProperties`, `items`, `minItems`,
 * `maxItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength`, `maxLength`,
 * `pattern`. Other keywords are ignored. Every violation is reported, located under `at`; messages
 * never quote the checked value. Rejected: adding a full JSON Schema engine for five flat schemas.
 */
export function checkJsonSchema(schema: JsonValue, value: JsonValue, at: string): FieldError[] {
  const errors: FieldError[] = [];
  walk(schema, value, at, errors);
  return errors;
}

type Schema = { [key: string]: JsonValue };

// A batch checks every event's size against a handful of schemas, so compiling a pattern per check
// was most of a string check's cost. Schemas come from configuration, so few patterns exist; the bound
// only keeps a pathological configuration from growing the map without end.
const patterns = new Map<string, RegExp>();
const patternLimit = 256;

function compiled(pattern: string): RegExp {
  let regex = patterns.get(pattern);
  if (regex === undefined) {
    if (patterns.size >= patternLimit) patterns.clear();
    regex = new RegExp(pattern, "u");
    patterns.set(pattern, regex);
  }
  return regex;
}

function isObject(value: JsonValue | undefined): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function hasType(value: JsonValue, name: string): boolean {
  if (name === "integer") return typeof value === "number" && Number.isInteger(value);
  return typeOf(value) === name;
}

function sameJson(a: JsonValue, b: JsonValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

function walk(schema: JsonValue, value: JsonValue, at: string, errors: FieldError[]): void {
  if (schema === true || !isObject(schema)) return;
  const fail = (msg: string) => errors.push({ loc: at, msg });

  const type = schema.type;
  if (type !== undefined) {
    const names = (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === "string");
    if (!names.some((name) => hasType(value, name))) {
      fail(`must be ${names.join(" or ")}`);
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => sameJson(e, value))) {
    fail(`must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if (schema.const !== undefined && !sameJson(schema.const, value))
    fail(`must be ${JSON.stringify(schema.const)}`);

  if (typeof value === "number") {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
    if (typeof minimum === "number" && value < minimum) fail(`must be at least ${minimum}`);
    if (typeof maximum === "number" && value > maximum) fail(`must be at most ${maximum}`);
    if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum)
      fail(`must be above ${exclusiveMinimum}`);
    if (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum)
      fail(`must be below ${exclusiveMaximum}`);
  }
  if (typeof value === "string") {
    const { minLength, maxLength, pattern } = schema;
    const length = charLength(value);
    if (typeof minLength === "number" && length < minLength) fail(`must be at least ${minLength} characters`);
    else if (typeof maxLength === "number" && length > maxLength)
      fail(`must be at most ${maxLength} characters`);
    else if (typeof pattern === "string" && !compiled(pattern).test(value)) fail(`must match ${pattern}`);
  }
  if (Array.isArray(value)) {
    const { minItems, maxItems, items } = schema;
    if (typeof minItems === "number" && value.length < minItems) fail(`must hold at least ${minItems} items`);
    if (typeof maxItems === "number" && value.length > maxItems) fail(`must hold at most ${maxItems} items`);
    if (items !== undefined) {
      for (const [i, item] of value.entries()) walk(items, item, `${at}.${i}`, errors);
    }
  }
  if (isObject(value)) {
    if (Array.isArray(schema.required)) {
      for (const member of schema.required) {
        if (typeof member === "string" && !Object.hasOwn(value, member)) {
          errors.push({ loc: `${at}.${member}`, msg: "is required" });
        }
      }
    }
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [member, memberValue] of Object.entries(value)) {
      const memberSchema = properties[member];
      if (memberSchema !== undefined) walk(memberSchema, memberValue, `${at}.${member}`, errors);
      else if (schema.additionalProperties === false) {
        errors.push({ loc: `${at}.${member}`, msg: "is not allowed" });
      } else if (isObject(schema.additionalProperties)) {
        walk(schema.additionalProperties, memberValue, `${at}.${member}`, errors);
      }
    }
  }
}
