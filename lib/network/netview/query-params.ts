/**
 * Query parameters declared once: the same list documents the route in the OpenAPI document
 * (`detail.parameters`) and reads the request, refusing with one 400 that names every bad or unknown
 * parameter (Elysia's own query schemas answer 422 and know nothing of lists of ports or states).
 */
import type { DocumentDecoration } from "elysia";
import { ValidationError } from "../../foundation/errors/svc-error.ts";

export interface ParamSpec {
  name: string;
  description: string;
  type: "string" | "integer" | "boolean";
  /** A JSON Schema format, such as `date-time`. */
  format?: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  default?: string | number | boolean;
  required?: boolean;
  /** May be given more than once (`ct=new&ct=est`). */
  repeated?: boolean;
}

export type QueryValue = string | number | boolean | string[] | undefined;

/** The OpenAPI 3.1 parameter objects of a route (cast once: Elysia declares 3.0 types). */
export function openapiParameters(specs: readonly ParamSpec[]): DocumentDecoration["parameters"] {
  const out = specs.map((s) => {
    const base: Record<string, unknown> = { type: s.type };
    if (s.format !== undefined) base.format = s.format;
    if (s.enum !== undefined) base.enum = [...s.enum];
    if (s.minimum !== undefined) base.minimum = s.minimum;
    if (s.maximum !== undefined) base.maximum = s.maximum;
    if (s.default !== undefined) base.default = s.default;
    return {
      name: s.name,
      in: "query" as const,
      description: s.description,
      required: s.required ?? false,
      schema: s.repeated === true ? { type: "array", items: base } : base,
      ...(s.repeated === true ? { style: "form", explode: true } : {}),
    };
  });
  return out as unknown as DocumentDecoration["parameters"];
}

/** Reads and checks the query of `url` against `specs`; absent optional values come back undefined. */
export function readQuery(url: string, specs: readonly ParamSpec[]): Record<string, QueryValue> {
  const search = new URL(url).searchParams;
  const out: Record<string, QueryValue> = {};
  const problems: { loc: string; msg: string }[] = [];
  const known = new Set(specs.map((s) => s.name));
  for (const key of new Set(search.keys())) {
    if (!known.has(key)) problems.push({ loc: `query.${key}`, msg: "unknown parameter" });
  }
  for (const spec of specs) {
    const values = search.getAll(spec.name);
    if (values.length === 0) {
      if (spec.required === true) problems.push({ loc: `query.${spec.name}`, msg: "is required" });
      out[spec.name] = spec.default;
      continue;
    }
    if (values.length > 1 && spec.repeated !== true) {
      problems.push({ loc: `query.${spec.name}`, msg: "may be given only once" });
      continue;
    }
    if (spec.repeated === true) {
      out[spec.name] = values;
      continue;
    }
    const raw = values[0] as string;
    switch (spec.type) {
      case "string":
        if (spec.enum !== undefined && !spec.enum.includes(raw))
          problems.push({ loc: `query.${spec.name}`, msg: `must be one of ${spec.enum.join(", ")}` });
        else if (raw === "" && spec.required === true)
          problems.push({ loc: `query.${spec.name}`, msg: "must not be empty" });
        else out[spec.name] = raw;
        break;
      case "integer": {
        const n = /^-?[0-9]{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
        if (!Number.isSafeInteger(n)) problems.push({ loc: `query.${spec.name}`, msg: "must be an integer" });
        else if (spec.minimum !== undefined && n < spec.minimum)
          problems.push({ loc: `query.${spec.name}`, msg: `must be at least ${spec.minimum}` });
        else if (spec.maximum !== undefined && n > spec.maximum)
          problems.push({ loc: `query.${spec.name}`, msg: `must be at most ${spec.maximum}` });
        else out[spec.name] = n;
        break;
      }
      case "boolean":
        if (raw !== "true" && raw !== "false")
          problems.push({ loc: `query.${spec.name}`, msg: "must be true or false" });
        else out[spec.name] = raw === "true";
        break;
    }
  }
  if (problems.length > 0) {
    throw new ValidationError(
      `invalid query: ${problems.map((p) => `${p.loc.slice(6)}: ${p.msg}`).join("; ")}`,
      problems,
    );
  }
  return out;
}

export const str = (v: QueryValue): string | undefined => (typeof v === "string" ? v : undefined);
export const int = (v: QueryValue): number | undefined => (typeof v === "number" ? v : undefined);
export const list = (v: QueryValue): string[] => (Array.isArray(v) ? v : []);
