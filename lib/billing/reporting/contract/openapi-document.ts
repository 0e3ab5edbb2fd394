import type { TObject, TSchema } from "@sinclair/typebox";
import { errorCodes } from "../../../foundation/errors/error-code.ts";
import { Problem } from "./common-schemas.ts";
import type { Operation, Security } from "./operation.ts";

type Json = { [key: string]: unknown };

/**
 * Converts a TypeBox schema (JSON Schema) to an OpenAPI 3.0.3 Schema Object: a union with null
 * becomes `nullable`, a record becomes `additionalProperties`, `const` becomes a one-value `enum`, a
 * union of string literals becomes a string enum, a numeric `exclusiveMinimum` becomes the 3.0
 * boolean form. A schema with an `$id` is emitted once under `components.schemas` and referenced.
 */
class SchemaConverter {
  readonly components: Record<string, Json> = {};

  convert(schema: TSchema): Json {
    const id = schema.$id;
    if (typeof id === "string") {
      if (!Object.hasOwn(this.components, id)) {
        this.components[id] = {};
        this.components[id] = this.#convertBody(schema);
      }
      return { $ref: `#/components/schemas/${id}` };
    }
    return this.#convertBody(schema);
  }

  #convertBody(schema: TSchema): Json {
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      switch (key) {
        case "$id":
        case "$schema":
          break;
        case "properties":
          out.properties = Object.fromEntries(
            Object.entries(value as Record<string, TSchema>).map(([name, s]) => [name, this.convert(s)]),
          );
          break;
        case "items":
          out.items = this.convert(value as TSchema);
          break;
        case "patternProperties": {
          const [inner] = Object.values(value as Record<string, TSchema>);
          out.additionalProperties =
            inner === undefined || Object.keys(inner).length === 0 ? true : this.convert(inner);
          break;
        }
        case "additionalProperties":
          out.additionalProperties = typeof value === "boolean" ? value : this.convert(value as TSchema);
          break;
        case "const":
          out.enum = [value];
          break;
        case "exclusiveMinimum":
        case "exclusiveMaximum":
          if (typeof value === "number") {
            out[key === "exclusiveMinimum" ? "minimum" : "maximum"] = value;
            out[key] = true;
          }
          break;
        case "anyOf":
        case "oneOf":
          Object.assign(out, this.#union(key, value as TSchema[]));
          break;
        case "allOf":
          out.allOf = (value as TSchema[]).map((s) => this.convert(s));
          break;
        default:
          out[key] = value;
      }
    }
    return out;
  }

  #union(keyword: "anyOf" | "oneOf", members: TSchema[]): Json {
    const nullable = members.some((m) => m.type === "null");
    const rest = members.filter((m) => m.type !== "null");
    const nullMark = nullable ? { nullable: true } : {};
    if (rest.length > 0 && rest.every((m) => typeof m.const === "string")) {
      return { type: "string", enum: rest.map((m) => m.const), ...nullMark };
    }
    const [only] = rest;
    if (rest.length === 1 && only !== undefined) {
      const converted = this.convert(only);
      // A $ref takes no siblings in 3.0: wrap it so that nullable applies.
      return "$ref" in converted && nullable
        ? { allOf: [converted], ...nullMark }
        : { ...converted, ...nullMark };
    }
    return { [keyword]: rest.map((m) => this.convert(m)), ...nullMark };
  }
}

const securitySchemes = {
  apiToken: {
    type: "http",
    scheme: "bearer",
    description: "an API token: a role (reader, read_all, admin) and optionally a project scope",
  },
  ingestToken: {
    type: "http",
    scheme: "bearer",
    description: "an ingest credential of one (platform, cloud) pair",
  },
  internalToken: {
    type: "http",
    scheme: "bearer",
    description: "the shared secret of other components (SVC_REPORTING_INTERNAL_TOKEN)",
  },
};

const schemeOf: Record<Security, string | null> = {
  api: "apiToken",
  ingest: "ingestToken",
  internal: "internalToken",
  none: null,
};

function errorStatuses(op: Operation<TObject, TObject, TSchema>): number[] {
  const statuses = new Set<number>(op.errors);
  if (op.params !== undefined || op.query !== undefined || op.body !== undefined) statuses.add(400);
  if (op.body !== undefined) statuses.add(415);
  if (op.security !== "none") {
    statuses.add(401);
    statuses.add(503);
  }
  if (op.security === "api") statuses.add(403);
  statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

function describeStatus(status: number): string {
  const codes = Object.entries(errorCodes).filter(([, c]) => c.status === status);
  return codes.map(([code, c]) => `${c.title} (urn:svc:error:${code})`).join("; ");
}

const requestIdHeader = {
  "X-Request-ID": {
    description: "the caller's id when it sent a usable one, a fresh UUID otherwise",
    schema: { type: "string" },
  },
};

interface DocumentInfo {
  title: string;
  version: string;
  description: string;
}

/** The OpenAPI 3.0.3 document of `operations` (no servers block: clients use their base address). */
export function openApiDocument(
  info: DocumentInfo,
  operations: readonly Operation<TObject, TObject, TSchema>[],
  extraComponents: readonly TSchema[] = [],
): Json {
  const converter = new SchemaConverter();
  const problemRef = converter.convert(Problem);
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  for (const op of operations) {
    tags.add(op.tag);
    const parameters: Json[] = [];
    for (const [name, schema] of Object.entries(op.params?.properties ?? {})) {
      parameters.push({ name, in: "path", required: true, schema: converter.convert(schema) });
    }
    const requiredQuery = new Set(op.query?.required ?? []);
    for (const [name, schema] of Object.entries(op.query?.properties ?? {})) {
      const { description, ...rest } = schema;
      parameters.push({
        name,
        in: "query",
        required: requiredQuery.has(name) && schema.default === undefined,
        ...(typeof description === "string" ? { description } : {}),
        schema: converter.convert(rest as TSchema),
      });
    }
    const responses: Record<string, Json> = {};
    for (const [status, success] of Object.entries(op.success)) {
      const headers: Json = { ...requestIdHeader };
      for (const [name, description] of Object.entries(success.headers ?? {})) {
        headers[name] = { description, schema: { type: "string" } };
      }
      const content =
        success.schema !== undefined
          ? { "application/json": { schema: converter.convert(success.schema) } }
          : { [success.text ?? "text/plain"]: { schema: { type: "string" } } };
      responses[status] = { description: success.description, headers, content };
    }
    for (const status of errorStatuses(op)) {
      responses[String(status)] = {
        description: describeStatus(status),
        headers: requestIdHeader,
        content: { "application/problem+json": { schema: problemRef } },
      };
    }
    const scheme = schemeOf[op.security];
    const entry: Json = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      ...(op.description !== undefined ? { description: op.description } : {}),
      security: scheme === null ? [] : [{ [scheme]: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.body !== undefined
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: converter.convert(op.body) } },
            },
          }
        : {}),
      responses,
    };
    paths[op.path] = { ...paths[op.path], [op.method.toLowerCase()]: entry };
  }
  for (const schema of extraComponents) converter.convert(schema);
  return {
    openapi: "3.0.3",
    info,
    tags: [...tags].map((name) => ({ name })),
    paths,
    components: {
      schemas: converter.components,
      securitySchemes,
    },
  };
}
