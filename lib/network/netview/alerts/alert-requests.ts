/**
 * The bodies and queries of the alert routes, read into overrides, silences and filters; every
 * problem is named in one 400.
 */
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isJsonObject } from "../../../foundation/json/is-json-object.ts";
import { parseDuration } from "../../../foundation/time/duration.ts";
import { canonicalInstant } from "../../../foundation/time/instant.ts";
import {
  type AlertLabels,
  type EffectiveRule,
  type RuleOverride,
  type Severity,
  severities,
} from "./alert-rules.ts";
import type { Silence, SilenceMatchers } from "./alert-store.ts";

const maxRuleDurationMs = 7 * 24 * 3_600_000;
const maxSilenceMs = 90 * 24 * 3_600_000;

function fail(problems: string[], what: string): void {
  if (problems.length > 0) throw new ValidationError(`invalid ${what}: ${problems.join("; ")}`);
}

const maxLabels = 20;
const labelName = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A rule's `labels`: names as Prometheus spells them, values of at most 200 characters. */
function readLabels(value: unknown, problems: string[]): AlertLabels | undefined {
  if (!isJsonObject(value)) {
    problems.push("labels: must be an object of names and string values, or null");
    return undefined;
  }
  const entries = Object.entries(value);
  if (entries.length > maxLabels) problems.push(`labels: at most ${maxLabels}`);
  const labels: AlertLabels = {};
  for (const [name, text] of entries) {
    if (!labelName.test(name))
      problems.push(`labels: ${JSON.stringify(name.slice(0, 70))} is not a label name`);
    else if (typeof text !== "string" || text.length > 200)
      problems.push(`labels.${name}: must be a string of at most 200 characters`);
    else labels[name] = text;
  }
  return labels;
}

/**
 * `PUT /api/v1/alerts/rules/{name}`: `enabled`, `severity`, `for`, (rules with one) `threshold`,
 * durations in the shared grammar, and `labels`; `null` puts a member back to its built-in value.
 * Returns the rule's whole override after the change.
 */
export function readRuleChange(body: unknown, rule: EffectiveRule, current: RuleOverride): RuleOverride {
  if (!isJsonObject(body))
    throw new ValidationError(
      'invalid body: expected {"enabled"?, "severity"?, "for"?, "threshold"?, "labels"?}',
    );
  const problems: string[] = [];
  const members =
    rule.defaults.threshold_ms === null
      ? ["enabled", "severity", "for", "labels"]
      : ["enabled", "severity", "for", "threshold", "labels"];
  for (const key of Object.keys(body))
    if (!members.includes(key))
      problems.push(`${key}: not a member for rule ${rule.name} (${members.join(", ")})`);
  const next: RuleOverride = { ...current };
  const value = (key: string) => body[key];
  if ("enabled" in body) {
    if (value("enabled") === null) delete next.enabled;
    else if (typeof value("enabled") === "boolean") next.enabled = value("enabled") as boolean;
    else problems.push("enabled: must be true, false or null");
  }
  if ("severity" in body) {
    const s = value("severity");
    if (s === null) delete next.severity;
    else if (typeof s === "string" && severities.includes(s as Severity)) next.severity = s as Severity;
    else problems.push(`severity: must be ${severities.join(", ")} or null`);
  }
  const duration = (key: "for" | "threshold", field: "for_ms" | "threshold_ms") => {
    if (!(key in body) || !members.includes(key)) return;
    const v = value(key);
    if (v === null) {
      delete next[field];
      return;
    }
    try {
      if (typeof v !== "string") throw new RangeError("takes a duration such as 0, 500ms, 90s, 5m or 1h30m");
      next[field] = parseDuration(v, { maxMs: maxRuleDurationMs });
    } catch (error) {
      problems.push(`${key}: ${(error as Error).message}`);
    }
  };
  duration("for", "for_ms");
  duration("threshold", "threshold_ms");
  if ("labels" in body) {
    const labels = value("labels") === null ? undefined : readLabels(value("labels"), problems);
    if (labels === undefined || Object.keys(labels).length === 0) delete next.labels;
    else next.labels = labels;
  }
  fail(problems, "body");
  return next;
}

/**
 * `POST /api/v1/alerts/silences`: `matchers` (at least one of `rule`, `cluster`, `subject`, each
 * exact), `comment`, `created_by` (default: the caller's actor), `starts_at` (default now) and
 * `ends_at` or `duration` (at most 90 days: a silence without an end is forgotten, and so is what it
 * hides).
 */
export function readSilence(
  body: unknown,
  context: {
    id: string;
    nowMs: number;
    rules: readonly string[];
    clusters: readonly string[];
    actor: string;
  },
): Silence {
  if (!isJsonObject(body))
    throw new ValidationError('invalid body: expected {"matchers", "comment", "duration" or "ends_at"}');
  const problems: string[] = [];
  for (const key of Object.keys(body)) {
    if (!["matchers", "comment", "created_by", "starts_at", "ends_at", "duration"].includes(key))
      problems.push(`${key}: not a member`);
  }
  const matchers: SilenceMatchers = {};
  const raw = body.matchers;
  if (!isJsonObject(raw)) problems.push("matchers: must be an object with rule, cluster or subject");
  else {
    for (const [key, v] of Object.entries(raw)) {
      if (key !== "rule" && key !== "cluster" && key !== "subject")
        problems.push(`matchers.${key}: not a matcher (rule, cluster, subject)`);
      else if (typeof v !== "string" || v === "" || v.length > 200)
        problems.push(`matchers.${key}: must be a non-empty string`);
      else matchers[key] = v;
    }
    if (Object.keys(raw).length === 0) problems.push("matchers: name at least one of rule, cluster, subject");
    if (matchers.rule !== undefined && !context.rules.includes(matchers.rule))
      problems.push(`matchers.rule: no rule ${JSON.stringify(matchers.rule)}`);
    if (matchers.cluster !== undefined && !context.clusters.includes(matchers.cluster))
      problems.push(`matchers.cluster: no cluster ${JSON.stringify(matchers.cluster)}`);
  }
  const text = (key: string, required: boolean) => {
    const v = body[key];
    if (v === undefined && !required) return "";
    if (typeof v !== "string" || (required && v.trim() === "") || v.length > 500) {
      problems.push(`${key}: must be a ${required ? "non-empty " : ""}string of at most 500 characters`);
      return "";
    }
    return v;
  };
  const comment = text("comment", true);
  const createdBy = body.created_by === undefined ? context.actor : text("created_by", false);
  const instant = (key: string): number | undefined => {
    const v = body[key];
    if (v === undefined) return undefined;
    try {
      if (typeof v !== "string") throw new RangeError("");
      return Date.parse(canonicalInstant(v));
    } catch {
      problems.push(`${key}: must be an RFC 3339 date-time with offset`);
      return undefined;
    }
  };
  const startsMs = instant("starts_at") ?? context.nowMs;
  let endsMs = instant("ends_at");
  if (body.duration !== undefined) {
    if (body.ends_at !== undefined) problems.push("duration and ends_at: give one");
    try {
      if (typeof body.duration !== "string") throw new RangeError("takes a duration such as 30m or 2h");
      endsMs = startsMs + parseDuration(body.duration, { minMs: 1000, maxMs: maxSilenceMs });
    } catch (error) {
      problems.push(`duration: ${(error as Error).message}`);
    }
  } else if (endsMs === undefined && body.ends_at === undefined) {
    problems.push("duration or ends_at: required (a silence ends)");
  }
  if (
    endsMs !== undefined &&
    (endsMs <= startsMs || endsMs <= context.nowMs || endsMs - startsMs > maxSilenceMs)
  ) {
    problems.push("ends_at: must be after starts_at and now, and at most 90 days after starts_at");
  }
  fail(problems, "body");
  return {
    id: context.id,
    matchers,
    comment,
    created_by: createdBy,
    created_at: new Date(context.nowMs).toISOString(),
    starts_at: new Date(startsMs).toISOString(),
    ends_at: new Date(endsMs as number).toISOString(),
  };
}

type SilencedFilter = "exclude" | "include" | "only";

/** `GET /api/v1/alerts`: `silenced` (exclude by default, include, only), `cluster`, `rule`, `severity`. */
export function readAlertQuery(query: Record<string, unknown>) {
  const problems: string[] = [];
  for (const key of Object.keys(query))
    if (!["silenced", "cluster", "rule", "severity"].includes(key))
      problems.push(`${key}: not a parameter here`);
  const silenced = query.silenced ?? "exclude";
  if (silenced !== "exclude" && silenced !== "include" && silenced !== "only")
    problems.push("silenced: takes exclude, include or only");
  const severity = query.severity;
  if (severity !== undefined && !severities.includes(severity as Severity))
    problems.push(`severity: takes ${severities.join(", ")}`);
  fail(problems, "query");
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    silenced: silenced as SilencedFilter,
    cluster: str(query.cluster),
    rule: str(query.rule),
    severity: str(severity),
  };
}
