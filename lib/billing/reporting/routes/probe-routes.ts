import { Elysia } from "elysia";
import { UnavailableError } from "../../../foundation/errors/svc-error.ts";
import type { HealthMonitor } from "../server/health-monitor.ts";

const text = (body: string) =>
  new Response(body, { headers: { "content-type": "text/plain; charset=utf-8" } });

/** `/healthz` and `/readyz`, no credential: 200 text/plain, or a 503 problem. */
export function probeRoutes(health: HealthMonitor) {
  return new Elysia({ name: "reporting-probes" })
    .get("/readyz", async () => {
      if (!(await health.ready())) throw new UnavailableError("the database cannot be reached");
      return text("ready\n");
    })
    .get("/healthz", () => {
      if (!health.live()) {
        throw new UnavailableError(
          "the database has been unreachable for longer than the unhealthy threshold",
        );
      }
      return text("ok\n");
    });
}
