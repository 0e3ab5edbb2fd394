import type { JsonObject, JsonValue } from "../../foundation/json/json-value.ts";

/**
 * Tolerant readers over a notification payload. The mapping never throws: a member that is missing or
 * of another type reads as the fallback, and the event it ends up in is refused at ingest instead.
 */
export function objectAt(obj: JsonObject, key: string): JsonObject | null {
  const value = obj[key];
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
}

export function stringAt(obj: JsonObject | null, key: string): string | null {
  const value = obj?.[key];
  return typeof value === "string" ? value : null;
}

export function numberAt(obj: JsonObject | null, key: string): number | null {
  const value = obj?.[key];
  if (typeof value === "number" && Number.isFinite(value)) return value;
  // Some services render numbers as strings (nova's legacy payloads did for ids and sizes).
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

export function arrayLengthAt(obj: JsonObject | null, key: string): number | null {
  const value = obj?.[key];
  return Array.isArray(value) ? value.length : null;
}

/** The first string among the members named, in order. */
export function firstString(obj: JsonObject | null, ...keys: string[]): string | null {
  for (const key of keys) {
    const value = stringAt(obj, key);
    if (value !== null && value !== "") return value;
  }
  return null;
}

/**
 * The project that owns the resource of a nova or cinder usage payload: `tenant_id` (`project_id` in
 * newer payloads), else the request context's project. One rule for every usage mapper.
 */
export function usageProjectId(payload: JsonObject | null, raw: JsonObject | null): string {
  return firstString(payload, "tenant_id", "project_id") ?? firstString(raw, "_context_project_id") ?? "";
}

/** A copy of the members named that are present, for `payload.provider` (audit only). */
export function pick(obj: JsonObject | null, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  if (obj === null) return out;
  for (const key of keys) {
    const value: JsonValue | undefined = obj[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
