/**
 * Checks netview's answers against its own OpenAPI 3.1 document: the status is one the operation
 * declares and a JSON body matches the declared schema (JSON Schema 2020-12, the dialect of 3.1). The
 * netview fixtures run it on every answer their tests read, so the documented shapes and the served
 * ones cannot drift apart. The reporting API's 3.0 checker (harness/reporting/contract-checker.ts)
 * reads 3.0's `nullable` and problem documents, which this document has neither of.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Path parameters in the template: the fewest wins when two templates match. */
  params: number;
  responses: Json;
}

/** The operations of a document, each with the pattern its paths match. */
export function documentOperations(document: Json): Operation[] {
  const out: Operation[] = [];
  for (const [template, methods] of Object.entries(document.paths as Record<string, Json>)) {
    const source = template
      .split("/")
      .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    for (const [method, operation] of Object.entries(methods)) {
      out.push({
        method: method.toUpperCase(),
        template,
        pattern: new RegExp(`^${source}$`),
        params: (template.match(/\{/g) ?? []).length,
        responses: ((operation as Json).responses ?? {}) as Json,
      });
    }
  }
  return out;
}

export class ResponseContract {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #operations: Operation[];
  readonly #compiled = new Map<unknown, ValidateFunction>();

  constructor(document: Json) {
    addFormats(this.#ajv);
    this.#operations = documentOperations(document);
  }

  /** The operation a request meets (the template with the fewest parameters), if documented. */
  operation(method: string, path: string): Operation | undefined {
    const bare = path.split("?")[0] ?? path;
    return this.#operations
      .filter((o) => o.method === method && o.pattern.test(bare))
      .sort((a, b) => a.params - b.params)[0];
  }

  /** What is wrong with an answer under the document; empty when it conforms or is not documented. */
  problems(
    request: { method?: string; path: string },
    status: number,
    contentType: string | null,
    body: unknown,
  ): string[] {
    const method = request.method ?? "GET";
    const op = this.operation(method, request.path);
    if (op === undefined) return [];
    const name = `${method} ${op.template}`;
    const declared = op.responses[String(status)] as Json | undefined;
    if (declared === undefined) return [`${name} does not declare ${status}`];
    const content = (declared.content ?? {}) as Record<string, { schema?: unknown }>;
    const type = (contentType ?? "").split(";")[0]?.trim() ?? "";
    if (Object.keys(content).length > 0 && content[type] === undefined)
      return [
        `${name} ${status}: answered ${type || "no content type"}, declares ${Object.keys(content).join(", ")}`,
      ];
    const schema = content["application/json"]?.schema;
    if (type !== "application/json" || schema === undefined) return [];
    let validate = this.#compiled.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(schema as Json);
      this.#compiled.set(schema, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 10)
      .map((e) => `${name} ${status}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
