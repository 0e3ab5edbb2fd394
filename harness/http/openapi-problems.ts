import { Validator } from "@seriousme/openapi-schema-validator";

/**
 * What the official OpenAPI schema (3.0 or 3.1, by the document's own `openapi` member) finds wrong
 * with a served document; empty when it is valid. Every server's document is checked with it in a test.
 */
export async function openApiProblems(document: unknown): Promise<string[]> {
  const result = await new Validator().validate(document as Record<string, unknown>);
  if (result.valid) return [];
  const errors = result.errors as unknown;
  if (!Array.isArray(errors)) return [String(errors)];
  return errors.map((e: { instancePath?: string; message?: string }) => `${e.instancePath} ${e.message}`);
}
