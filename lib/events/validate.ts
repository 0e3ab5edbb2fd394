import type { FieldError } from "../errors/svc-error.ts";
import { canonicalInstant, isRfc3339 } from "../time/instant.ts";
import { categoryOf } from "./category.ts";
import {
  type CanonicalEvent,
  type EventSource,
  eventSources,
  type JsonObject,
  type PayloadEnvelope,
  reservedPlatformNames,
} from "./event.ts";

export const eventIdMaxLength = 256;
export const memberMaxLength = 512;
export const eventTypePattern = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;

export type EventValidation = { ok: true; event: CanonicalEvent } | { ok: false; errors: FieldError[] };

const eventMembers = new Set([
  "event_id",
  "timestamp",
  "event_type",
  "platform",
  "cloud",
  "resource_type",
  "resource_id",
  "project_id",
  "source",
  "payload",
]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Length in characters (code points), as PostgreSQL counts them; UTF-16 length bounds it from above. */
function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** PostgreSQL text and jsonb cannot hold U+0000; an item carrying it anywhere is refused here. */
function hasNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(hasNul);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).some(([k, v]) => k.includes("\u0000") || hasNul(v));
  }
  return false;
}

function tooLong(value: string, max: number): boolean {
  return value.length > max && charLength(value) > max;
}

/**
 * Checks one submitted item against every member rule of the canonical event (1-reporting-api.md, Event
 * and PayloadEnvelope) and reports every broken rule at once, each located under `at` (for example
 * `body.3`). Length is checked before pattern, and no message quotes a submitted value: a refusal for
 * length must not echo the oversized value, and the others follow so that no message leaks input.
 * The timestamp is returned in canonical form; payload members the envelope does not name are kept.
 * `source` is the claimed one (default `collector`); the ingest pipeline decides what it stores.
 */
export function validateEvent(raw: unknown, at: string): EventValidation {
  if (!isObject(raw)) return { ok: false, errors: [{ loc: at, msg: "must be an object" }] };
  const errors: FieldError[] = [];
  const fail = (member: string, msg: string) => errors.push({ loc: `${at}.${member}`, msg });

  for (const member of Object.keys(raw)) {
    if (!eventMembers.has(member)) fail(member, "is not a member of an event");
  }

  const text = (member: string, max: number): string | undefined => {
    const value = raw[member];
    if (value === undefined || value === null) {
      fail(member, "is required");
      return undefined;
    }
    if (typeof value !== "string") {
      fail(member, "must be a string");
      return undefined;
    }
    if (value.length === 0) {
      fail(member, "must not be empty");
      return undefined;
    }
    if (value.includes("\u0000")) {
      fail(member, "must not contain the NUL character");
      return undefined;
    }
    if (tooLong(value, max)) {
      fail(member, `must be at most ${max} characters`);
      return undefined;
    }
    return value;
  };

  const eventId = text("event_id", eventIdMaxLength);

  let timestamp: string | undefined;
  const rawTimestamp = raw.timestamp;
  if (rawTimestamp === undefined || rawTimestamp === null) fail("timestamp", "is required");
  else if (typeof rawTimestamp !== "string") fail("timestamp", "must be a string");
  else if (!isRfc3339(rawTimestamp)) fail("timestamp", "must be an RFC 3339 date-time with an offset");
  else timestamp = canonicalInstant(rawTimestamp);

  const eventType = text("event_type", memberMaxLength);
  if (eventType !== undefined && !eventTypePattern.test(eventType)) {
    fail(
      "event_type",
      "must be two or more dot-separated parts of lower-case letters, digits and underscores",
    );
  }

  const platform = text("platform", memberMaxLength);
  const cloud = text("cloud", memberMaxLength);
  for (const [member, value] of [
    ["platform", platform],
    ["cloud", cloud],
  ] as const) {
    if (value !== undefined && reservedPlatformNames.includes(value)) {
      fail(member, "must not be meta or partner (reserved for virtual projects)");
    }
  }
  const resourceType = text("resource_type", memberMaxLength);
  const resourceId = text("resource_id", memberMaxLength);
  const projectId = text("project_id", memberMaxLength);

  let source: EventSource = "collector";
  const rawSource = raw.source;
  if (rawSource !== undefined && rawSource !== null) {
    if (typeof rawSource === "string" && (eventSources as readonly string[]).includes(rawSource)) {
      source = rawSource as EventSource;
    } else {
      fail("source", "must be collector or reconciliation");
    }
  }

  const payload = validatePayload(raw.payload, eventType, `${at}.payload`, errors);

  if (
    errors.length > 0 ||
    eventId === undefined ||
    timestamp === undefined ||
    eventType === undefined ||
    platform === undefined ||
    cloud === undefined ||
    resourceType === undefined ||
    resourceId === undefined ||
    projectId === undefined ||
    payload === undefined
  ) {
    return { ok: false, errors };
  }
  return {
    ok: true,
    event: {
      event_id: eventId,
      timestamp,
      event_type: eventType,
      platform,
      cloud,
      resource_type: resourceType,
      resource_id: resourceId,
      project_id: projectId,
      source,
      payload,
    },
  };
}

function validatePayload(
  raw: unknown,
  eventType: string | undefined,
  at: string,
  errors: FieldError[],
): PayloadEnvelope | undefined {
  if (raw === undefined || raw === null) {
    errors.push({ loc: at, msg: "is required" });
    return undefined;
  }
  if (!isObject(raw)) {
    errors.push({ loc: at, msg: "must be an object" });
    return undefined;
  }
  const before = errors.length;
  if (hasNul(raw)) errors.push({ loc: at, msg: "must not contain the NUL character" });
  // The category is known only when the type is readable; without it the presence rules cannot apply.
  const category = eventType !== undefined && eventTypePattern.test(eventType) ? categoryOf(eventType) : null;

  const state = raw.state;
  if (state === undefined || state === null) {
    if (category === "create" || category === "update") {
      errors.push({ loc: `${at}.state`, msg: "is required on every event except a delete" });
    }
  } else if (typeof state !== "string") {
    errors.push({ loc: `${at}.state`, msg: "must be a string or null" });
  } else if (tooLong(state, memberMaxLength)) {
    errors.push({ loc: `${at}.state`, msg: `must be at most ${memberMaxLength} characters` });
  } else if (state.length === 0 && category !== "delete") {
    errors.push({ loc: `${at}.state`, msg: "must not be empty" });
  }

  const size = raw.size;
  if (size === undefined || size === null) {
    if (category === "create") errors.push({ loc: `${at}.size`, msg: "is required on a create" });
  } else if (!isObject(size)) {
    errors.push({ loc: `${at}.size`, msg: "must be an object" });
  }

  const provider = raw.provider;
  if (provider !== undefined && provider !== null && !isObject(provider)) {
    errors.push({ loc: `${at}.provider`, msg: "must be an object" });
  }
  if (errors.length > before) return undefined;

  // Envelope members are dropped when empty (null), as the encoder omits them; others pass unchanged.
  const payload: PayloadEnvelope = { ...raw };
  for (const member of ["state", "size", "provider"] as const) {
    if (payload[member] === null) delete payload[member];
  }
  return payload;
}
