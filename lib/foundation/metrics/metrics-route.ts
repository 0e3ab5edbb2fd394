import { Elysia } from "elysia";
import type { Registry } from "prom-client";
import { NotFoundError } from "../errors/svc-error.ts";

/**
 * `GET /metrics`: the exposition of `registry`, or 404 when metrics are switched off
 * (`SVC_METRICS_ENABLED=false`); switching off hides the route, it does not stop the counting.
 */
export function metricsRoute(registry: Registry, enabled: boolean) {
  return new Elysia({ name: "svc-metrics" }).get("/metrics", async () => {
    if (!enabled) throw new NotFoundError("metrics are switched off");
    return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType } });
  });
}
