/**
 * `/api/v1/alerts`: firing alerts, the rules and their changes, silences. Reading is open; a rule
 * change, a silence made or removed needs the write token (decision 362).
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import type { ClusterSet } from "../cluster.ts";
import { needsWriteToken } from "../openapi-document.ts";
import { jsonBody, listOf, noContent, responses, tokenErrors } from "../openapi-shapes.ts";
import { openapiParameters } from "../query-params.ts";
import type { Guard } from "../write/write-token.ts";
import { type AlertEngine, silenceState } from "./alert-engine.ts";
import { readAlertQuery, readRuleChange, readSilence } from "./alert-requests.ts";
import {
  alertParams,
  alertSchema,
  newSilenceSchema,
  ruleChangeSchema,
  ruleSchema,
  silenceSchema,
} from "./alert-shapes.ts";

const tags = ["alerts"];

export function alertRoutes(options: {
  engine: AlertEngine;
  clusters: ClusterSet;
  guard: Guard;
  now: () => number;
}) {
  const { engine, clusters, guard, now } = options;
  return new Elysia({ name: "netview-alerts" })
    .get(
      "/api/v1/alerts",
      ({ query }) => {
        const q = readAlertQuery((query ?? {}) as Record<string, unknown>);
        return engine
          .alerts()
          .filter((a) => (q.silenced === "exclude" ? !a.silenced : q.silenced === "only" ? a.silenced : true))
          .filter(
            (a) =>
              (q.cluster === undefined || a.cluster === q.cluster) &&
              (q.rule === undefined || a.rule === q.rule),
          )
          .filter((a) => q.severity === undefined || a.severity === q.severity);
      },
      {
        detail: {
          tags,
          summary: "Firing alerts, most severe first",
          parameters: openapiParameters(alertParams),
          responses: responses(listOf(alertSchema), { 400: "invalid parameters" }),
        },
      },
    )
    .get("/api/v1/alerts/rules", () => [...engine.rules().values()], {
      detail: {
        tags,
        summary: "The built-in rules with their effective settings and defaults",
        responses: responses(listOf(ruleSchema)),
      },
    })
    .put(
      "/api/v1/alerts/rules/:name",
      (context) => {
        const { params, body } = context;
        guard(context);
        const rule = engine.rules().get(params.name);
        if (rule === undefined) throw new NotFoundError(`no rule ${params.name}`);
        const override = readRuleChange(body, rule, engine.store.overrides().get(rule.name) ?? {});
        engine.store.setOverride(rule.name, override);
        engine.rulesChanged();
        return engine.rules().get(rule.name);
      },
      {
        detail: {
          tags,
          summary:
            'Change a rule: {"enabled"?, "severity"?, "for"?, "threshold"?, "labels"?}; null restores the default. A firing alert keeps firing with its since',
          security: needsWriteToken,
          requestBody: jsonBody(ruleChangeSchema),
          responses: responses(ruleSchema, { 400: "invalid body", 404: "no such rule", ...tokenErrors }),
        },
      },
    )
    .get(
      "/api/v1/alerts/silences",
      () => {
        const nowIso = new Date(now()).toISOString();
        return engine.store.silences().map((s) => ({ ...s, state: silenceState(s, nowIso) }));
      },
      {
        detail: {
          tags,
          summary: "Silences with their state (pending, active, expired)",
          responses: responses(listOf(silenceSchema)),
        },
      },
    )
    .post(
      "/api/v1/alerts/silences",
      (context) => {
        const { body, set } = context;
        const { actor } = guard(context);
        const silence = readSilence(body, {
          id: crypto.randomUUID(),
          nowMs: now(),
          rules: [...engine.rules().keys()],
          clusters: clusters.all.map((c) => c.name),
          actor,
        });
        engine.store.addSilence(silence);
        set.status = 201;
        return { ...silence, state: silenceState(silence, new Date(now()).toISOString()) };
      },
      {
        detail: {
          tags,
          summary:
            'Silence alerts: {"matchers": {"rule"?, "cluster"?, "subject"?}, "comment", "duration" or "ends_at", "starts_at"?, "created_by"? (default: X-Netview-Actor)}',
          security: needsWriteToken,
          requestBody: jsonBody(newSilenceSchema),
          responses: responses(silenceSchema, { 400: "invalid body", ...tokenErrors }, { status: 201 }),
        },
      },
    )
    .delete(
      "/api/v1/alerts/silences/:id",
      (context) => {
        const { params, set } = context;
        guard(context);
        if (!engine.store.deleteSilence(params.id)) throw new NotFoundError("not found");
        set.status = 204;
      },
      {
        detail: {
          tags,
          summary: "Remove a silence",
          security: needsWriteToken,
          responses: noContent({ 404: "not found", ...tokenErrors }),
        },
      },
    );
}
