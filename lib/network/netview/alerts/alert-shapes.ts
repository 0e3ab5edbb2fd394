/**
 * OpenAPI descriptions of the alert routes' parameters, bodies and answers (docs/netview.md
 * "Alerts"). Answers allow members beyond those listed, so that a member added to one is not a
 * contract break before its description follows; the contract test checks every listed one.
 */
import { arr, n, s } from "../debug/debug-shapes.ts";
import type { ParamSpec } from "../query-params.ts";
import { severities } from "./alert-rules.ts";

type JsonSchema = Record<string, unknown>;

const has = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: "object",
  properties,
  required: Object.keys(properties),
});
const severity = { enum: [...severities] };
const labels: JsonSchema = { type: "object", additionalProperties: { type: "string" } };
const matchers: JsonSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  description: "exact values; an alert is silenced when every one given matches",
  properties: {
    rule: { type: "string", minLength: 1, maxLength: 200 },
    cluster: { type: "string", minLength: 1, maxLength: 200 },
    subject: { type: "string", minLength: 1, maxLength: 200 },
  },
};

const alertMembers = {
  id: s("string", "rule/cluster/subject"),
  rule: s("string"),
  severity,
  cluster: s("string"),
  subject: s("string", "a chassis, nb or sb, ports, propagation"),
  message: s("string"),
  since: s("string", "when the condition was first found"),
  fired_at: s("string"),
  silenced: s("boolean"),
  silenced_by: arr(s("string")),
};

/** With `labels` described where an answer carries them (a rule's, on its alerts). */
const withLabels = (members: Record<string, JsonSchema>): JsonSchema => ({
  ...has(members),
  properties: { ...members, labels },
});

export const alertSchema: JsonSchema = withLabels(alertMembers);

const ruleMembers = {
  name: s("string"),
  description: s("string"),
  severity,
  for_ms: s("integer"),
  threshold_ms: n("integer"),
  enabled: s("boolean"),
  overridden: { ...arr(s("string")), description: "members changed from the built-in value" },
  defaults: has({ enabled: s("boolean"), severity, for_ms: s("integer"), threshold_ms: n("integer") }),
};

export const ruleSchema: JsonSchema = withLabels(ruleMembers);

const silenceMembers = {
  id: s("string"),
  matchers,
  comment: s("string"),
  created_by: s("string"),
  created_at: s("string"),
  starts_at: s("string"),
  ends_at: s("string"),
  state: { enum: ["pending", "active", "expired"] },
};

export const silenceSchema: JsonSchema = has(silenceMembers);

const nullable = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: "null" }] });
const duration = s("string", "a duration: 0, 500ms, 90s, 5m, 1h30m (at most 7 days)");

export const ruleChangeSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  description: "null puts a member back to its built-in value",
  properties: {
    enabled: nullable(s("boolean")),
    severity: nullable(severity),
    for: nullable(duration),
    threshold: { ...nullable(duration), description: "only the rules with a threshold" },
    labels: {
      ...nullable(labels),
      description: "names as Prometheus spells them, values up to 200 characters",
    },
  },
};

export const newSilenceSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["matchers", "comment"],
  description: "duration or ends_at, not both",
  properties: {
    matchers,
    comment: { type: "string", minLength: 1, maxLength: 500 },
    created_by: { type: "string", maxLength: 500, description: "default: X-Netview-Actor, else anonymous" },
    starts_at: s("string", "RFC 3339 (default: now)"),
    ends_at: s("string", "RFC 3339"),
    duration: s("string", "at most 90 days"),
  },
};

export const alertParams: ParamSpec[] = [
  {
    name: "silenced",
    type: "string",
    enum: ["exclude", "include", "only"],
    default: "exclude",
    description: "Silenced alerts: left out, shown, or shown alone",
  },
  { name: "cluster", type: "string", description: "Only this cluster's" },
  { name: "rule", type: "string", description: "Only this rule's" },
  { name: "severity", type: "string", enum: severities, description: "Only this severity" },
];
