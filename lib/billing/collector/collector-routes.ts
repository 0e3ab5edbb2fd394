/**
 * The collector's HTTP routes (docs/collector.md#http-routes): two probes with plain-text bodies and
 * the metrics exposition, no credential. `/readyz` wants a broker session and an outbox that answers
 * (a skipped exchange does not fail it); `/healthz` weighs the outbox only, and fails once it has been
 * unusable for `SVC_OSC_UNHEALTHY_THRESHOLD_S`. The outbox check is one indexed read on the process's
 * own connection; SQLite's busy timeout (2 s) bounds it, since a synchronous call cannot be cut short
 * by a timer.
 */
import { Elysia } from "elysia";
import type { Registry } from "prom-client";
import { metricsRoute } from "../../foundation/metrics/metrics-route.ts";

interface CollectorRoutesDeps {
  /** Whether a broker session is up. */
  connected: () => boolean;
  /** Whether the outbox answers now. */
  outboxAnswers: () => boolean;
  /** Since when the outbox has been unusable (ms), null while it answers. */
  outboxUnusableSince: () => number | null;
  unhealthyThresholdMs: number;
  registry: Registry;
  metricsEnabled: boolean;
  now?: () => number;
}

const text = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

export function collectorRoutes(deps: CollectorRoutesDeps) {
  const now = deps.now ?? Date.now;
  return new Elysia({ name: "collector-routes" })
    .get("/readyz", () =>
      deps.connected() && deps.outboxAnswers() ? text("ok") : text("the collector is not ready", 503),
    )
    .get("/healthz", () => {
      if (deps.outboxAnswers()) return text("ok");
      const since = deps.outboxUnusableSince() ?? now();
      return now() - since < deps.unhealthyThresholdMs
        ? text("ok")
        : text("the collector has been unhealthy for too long", 503);
    })
    .use(metricsRoute(deps.registry, deps.metricsEnabled));
}
