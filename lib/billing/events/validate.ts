import type { FieldError } from "../../foundation/errors/svc-error.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { storableText, unstorableIn, unstorableMessage } from "../../foundation/json/storable-text.ts";
import { readInstant } from "../../foundation/time/instant.ts";
import { categoryOf } from "./category.ts";
import {
  type CanonicalEvent,
  type EventSource,
  eventSources,
  type PayloadEnvelope,
  reservedPlatformNames,
} from "./event.ts";

export const eventIdMaxLength = 256;
export const memberMaxLength = 512;
export const eventTypePattern = /^[a-z0-9_]+(\.[a-z0-9_]+)+$/;
/**
 * How deeply a payload may nest objects and arrays, the payload object being level 1 (decision 118).
 * Sizes and provider data are a few levels deep; the bound keeps every later walk over a stored
 * payload (fold, equality, serialization) far from any stack limit.
 */
export const payloadMaxDepth = 32;

type EventValidation = { ok: true; event: CanonicalEvent } | { ok: false; errors: FieldError[] };

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

/** A value on the walk's stack, with how it is reached, so a location is written only for a problem. */
interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | null;
  step: string;
}

function locationOf(visit: Visit, at: string): string {
  const steps: string[] = [];
  for (let v: Visit | null = visit; v?.parent; v = v.parent) steps.push(v.step);
  return steps.length === 0 ? at : `${at}.${steps.reverse().join(".")}`;
}

/**
 * The first place in a payload the database could not store or that nests too deep, walked with its
 * own stack (a payload may arrive nested far deeper than the call stack reaches): a string or member
 * name holding U+0000 or a lone surrogate, or a value below level `payloadMaxDepth`.
 */
function payloadProblem(payload: JsonObject, at: string): FieldError | null {
  const todo: Visit[] = [{ value: payload, depth: 1, parent: null, step: "" }];
  while (todo.length > 0) {
    const visit = todo.pop() as Visit;
    const { value, depth } = visit;
    if (typeof value === "string") {
      const problem = unstorableIn(value);
      if (problem) return { loc: locationOf(visit, at), msg: unstorableMessage(problem) };
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth > payloadMaxDepth) {
      return { loc: at, msg: `must not nest objects and arrays more than ${payloadMaxDepth} levels deep` };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        todo.push({ value: value[i], depth: depth + 1, parent: visit, step: String(i) });
      }
      continue;
    }
    for (const key in value) {
      const problem = unstorableIn(key);
      if (problem) {
        const loc = `${locationOf(visit, at)}.${storableText(key)}`;
        return { loc, msg: `has a member name that ${unstorableMessage(problem)}` };
      }
      todo.push({ value: (value as JsonObject)[key], depth: depth + 1, parent: visit, step: key });
    }
  }
  return null;
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
    if (!eventMembers.has(member)) fail(storableText(member), "is not a member of an event");
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
    const unstorable = unstorableIn(value);
    if (unstorable) {
      fail(member, unstorableMessage(unstorable));
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
  else {
    const reading = readInstant(rawTimestamp);
    if (reading.ok) timestamp = reading.instant;
    else fail("timestamp", reading.refusal);
  }

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
  const problem = payloadProblem(raw, at);
  if (problem) errors.push(problem);
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
