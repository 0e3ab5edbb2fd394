import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

type Json = { [key: string]: unknown };

const problemRef = { $ref: "contract#/definitions/Problem" };

interface ObservedResponse {
  method: string;
  /** The concrete path, without the query. */
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

/**
 * Checks responses against a served OpenAPI 3.0 document: the path and method are declared, the status
 * is one of the operation's, the content type is the declared one, and a JSON body matches the
 * declared schema (Ajv, which reads OpenAPI's `nullable`). Used by the integration tests on every
 * response they receive, so the served contract and the behaviour cannot drift apart.
 */
export class ContractChecker {
  readonly #ajv = new Ajv({ strict: false, allErrors: true });
  readonly #operations: { pattern: RegExp; methods: Json }[] = [];
  readonly #compiled = new Map<unknown, ValidateFunction>();
  /** Responses checked, per "METHOD path-template status", so a test can say what it covered. */
  readonly seen = new Set<string>();

  constructor(document: Json) {
    addFormats(this.#ajv);
    const components = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
    const rewrite = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"contract#/definitions/'));
    this.#ajv.addSchema({ $id: "contract", definitions: rewrite(components) });
    for (const [template, methods] of Object.entries(document.paths as Json)) {
      const source = template
        .split("/")
        .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/");
      // The router serves a path with a trailing slash as the path without (lib/foundation/http/route-methods.ts).
      this.#operations.push({ pattern: new RegExp(`^${source}/?$`), methods: rewrite(methods) as Json });
      Object.defineProperty(this.#operations.at(-1), "template", { value: template });
    }
  }

  /** What is wrong with `response` under the document; empty when it conforms. */
  problems(response: ObservedResponse): string[] {
    const found = this.#operations.find((o) => o.pattern.test(response.path));
    // The base answers an unknown path 404 and a known path's other methods 405: problems as well.
    if (found === undefined) return this.#baseProblem(response, 404);
    const template = (found as unknown as { template: string }).template;
    const op = found.methods[response.method.toLowerCase()] as Json | undefined;
    if (op === undefined) return this.#baseProblem(response, 405);
    const declared = (op.responses as Json)[String(response.status)] as Json | undefined;
    if (declared === undefined) return [`${response.method} ${template} does not declare ${response.status}`];
    this.seen.add(`${response.method} ${template} ${response.status}`);
    const content = (declared.content ?? {}) as Record<string, { schema?: unknown }>;
    const mediaType = (response.contentType ?? "").split(";")[0]?.trim() ?? "";
    const media = content[mediaType];
    if (media === undefined)
      return [`${response.method} ${template} ${response.status}: ${mediaType} is not declared`];
    if (!mediaType.endsWith("json") || media.schema === undefined) return [];
    return this.#check(media.schema, response.body, `${response.method} ${template} ${response.status}`);
  }

  #baseProblem(response: ObservedResponse, status: number): string[] {
    const at = `${response.method} ${response.path}`;
    if (response.status !== status) return [`${at} is not in the document (answered ${response.status})`];
    if (!(response.contentType ?? "").startsWith("application/problem+json"))
      return [`${at}: ${status} is not a problem document`];
    return this.#check(problemRef, response.body, `${at} ${status}`);
  }

  #check(schema: unknown, body: unknown, at: string): string[] {
    let validate = this.#compiled.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(schema as Json);
      this.#compiled.set(schema, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e) => `${at}: ${e.instancePath} ${e.message}`);
  }
}
