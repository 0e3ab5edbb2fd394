/**
 * `/api/v1/alerts`: firing alerts, the rules and their changes, silences. Reading is open; a rule
 * change, a silence made or removed needs the write token (decision 362).
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import type { ClusterSet } from "../cluster.ts";
import type { Guard } from "../write/write-token.ts";
import { type AlertEngine, silenceState } from "./alert-engine.ts";
import { readAlertQuery, readRuleChange, readSilence } from "./alert-requests.ts";

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
          summary:
            "Firing alerts, most severe first (silenced ones only with silenced=include or only; cluster, rule, severity filter)",
        },
      },
    )
    .get("/api/v1/alerts/rules", () => [...engine.rules().values()], {
      detail: { tags, summary: "The built-in rules with their effective settings and defaults" },
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
        },
      },
    )
    .get(
      "/api/v1/alerts/silences",
      () => {
        const nowIso = new Date(now()).toISOString();
        return engine.store.silences().map((s) => ({ ...s, state: silenceState(s, nowIso) }));
      },
      { detail: { tags, summary: "Silences with their state (pending, active, expired)" } },
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
      { detail: { tags, summary: "Remove a silence" } },
    );
}
