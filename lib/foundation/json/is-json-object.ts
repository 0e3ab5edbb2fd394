/** A parsed JSON object (not an array, not null): the narrowing every reader of untyped JSON needs. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
