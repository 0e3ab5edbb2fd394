/**
 * Checks netview's answers against its own OpenAPI 3.1 document: the status is one the operation
 * declares and a JSON body matches the declared schema (JSON Schema 2020-12, the dialect of 3.1). The
 * debug fixture runs it on every answer its tests read, so the documented shapes and the served ones
 * cannot drift apart. The reporting API's 3.0 checker (harness/reporting/contract-checker.ts)
 * reads 3.0's `nullable` and problem documents, which this document has neither of. Test code only.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

type Json = Record<string, unknown>;

interface Operation {
  template: string;
  pattern: RegExp;
  /** Path parameters in the template: the fewest wins when two templates match. */
  params: number;
  responses: Json;
}

export class ResponseContract {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly #operations: Operation[] = [];
  readonly #compiled = new Map<unknown, ValidateFunction>();

  constructor(document: Json) {
    addFormats(this.#ajv);
    for (const [template, methods] of Object.entries(document.paths as Record<string, Json>)) {
      const get = methods.get as Json | undefined;
      if (get === undefined) continue;
      const source = template
        .split("/")
        .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/");
      this.#operations.push({
        template,
        pattern: new RegExp(`^${source}$`),
        params: (template.match(/\{/g) ?? []).length,
        responses: (get.responses ?? {}) as Json,
      });
    }
  }

  /** What is wrong with a GET answer under the document; empty when it conforms or is not documented. */
  problems(path: string, status: number, contentType: string | null, body: unknown): string[] {
    const bare = path.split("?")[0] ?? path;
    const op = this.#operations.filter((o) => o.pattern.test(bare)).sort((a, b) => a.params - b.params)[0];
    if (op === undefined) return [];
    const declared = op.responses[String(status)] as Json | undefined;
    if (declared === undefined) return [`GET ${op.template} does not declare ${status}`];
    if (!(contentType ?? "").startsWith("application/json")) return [];
    const content = (declared.content ?? {}) as Record<string, { schema?: unknown }>;
    const schema = content["application/json"]?.schema;
    if (schema === undefined) return [];
    let validate = this.#compiled.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(schema as Json);
      this.#compiled.set(schema, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? [])
      .slice(0, 10)
      .map(
        (e) =>
          `GET ${op.template} ${status}: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`,
      );
  }
}
