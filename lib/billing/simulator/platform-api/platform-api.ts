import { Elysia } from "elysia";
import { createApp } from "../../../foundation/http/create-app.ts";
import { createLogger, type Logger } from "../../../foundation/log/logger.ts";
import type { Month } from "../month.ts";
import { computeRoutes } from "./compute-routes.ts";
import { identityRoutes, platformCredentials } from "./identity-routes.ts";
import { imageRoutes } from "./image-routes.ts";
import { inventoryRoute } from "./inventory-metrics.ts";
import { loadBalancerMemberRoute } from "./load-balancer-member-route.ts";
import { LoadBalancerMembers } from "./load-balancer-members.ts";
import { loadBalancerRoutes } from "./load-balancer-routes.ts";
import { networkRoutes } from "./network-routes.ts";
import { PlatformView } from "./platform-view.ts";
import { volumeRoutes } from "./volume-routes.ts";

export { platformCredentials };

interface PlatformApiDeps {
  view: PlatformView;
  /** The run's one token (decision 237). */
  token: string;
  /** The virtual instant, epoch milliseconds; documents clamp it to the month's end. */
  now: () => number;
  /** Listeners and pools added to load balancers beside the month (none unless a test or scenario adds some). */
  members: LoadBalancerMembers;
}

/** A fresh token for one run: 32 hex digits, as keystone's fernet-less tokens look. */
export function runToken(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * Every route of the fake platform API (docs/simulator.md#fake-platform-api), mounted beside the control routes during a run, with
 * the inventory `GET /metrics` unless metrics are switched off (then it is an unknown path, 404), and
 * the control route that puts listeners and pools on a load balancer (decision 180).
 */
export function platformApiRoutes(deps: PlatformApiDeps & { metricsEnabled: boolean }) {
  return new Elysia({ name: "svc-simulator-platform-api" })
    .use(
      deps.metricsEnabled
        ? inventoryRoute(deps.view, deps.now)
        : new Elysia({ name: "svc-simulator-no-inventory" }),
    )
    .use(identityRoutes(deps.token))
    .use(computeRoutes(deps))
    .use(volumeRoutes(deps))
    .use(networkRoutes(deps))
    .use(imageRoutes(deps))
    .use(loadBalancerRoutes(deps))
    .use(loadBalancerMemberRoute(deps));
}

/** A fake platform API listening on its own, for tests (reconciliation's among them). */
export interface PlatformApiServer {
  /** `http://127.0.0.1:<port>`: the identity endpoint is `${url}/v3`. */
  readonly url: string;
  readonly port: number;
  /** Sets the virtual instant the API answers at (epoch milliseconds), forwards or back. */
  at(ms: number): void;
  readonly view: PlatformView;
  /**
   * From the current virtual instant on, the load balancer shows this many listeners and pools, as if
   * an operator had added them (the month itself gives none, decision 236).
   */
  setLoadBalancerMembers(id: string, counts: { listeners: number; pools: number }): void;
  readonly token: string;
  readonly credentials: typeof platformCredentials;
  stop(): Promise<void>;
}

/**
 * Starts the fake platform API over `month` on a free port of 127.0.0.1 (or the one given), answering
 * at an instant the caller sets, at first the month's first instant:
 *
 *   const api = await startPlatformApi({ month: generateMonth({ seed: 7, period, cloud, scale }) });
 *   api.at(Date.parse("2026-10-15T00:00:00Z"));
 *   // POST `${api.url}/v3/auth/tokens` with api.credentials, then list with X-Auth-Token
 *   await api.stop();
 */
export async function startPlatformApi(options: {
  month: Month;
  hostname?: string;
  port?: number;
  logger?: Logger;
  /** Serve the inventory `GET /metrics` (default true). */
  metricsEnabled?: boolean;
}): Promise<PlatformApiServer> {
  const view = new PlatformView(options.month);
  let instant = view.periodFrom;
  const token = runToken();
  const members = new LoadBalancerMembers();
  const logger = options.logger ?? createLogger({ service: "svc-simulator", level: "WARN" });
  const app = createApp({ service: "svc-simulator", logger }).use(
    platformApiRoutes({
      view,
      token,
      now: () => instant,
      members,
      metricsEnabled: options.metricsEnabled ?? true,
    }),
  );
  const hostname = options.hostname ?? "127.0.0.1";
  app.listen({ hostname, port: options.port ?? 0 });
  const port = app.server?.port;
  if (port === undefined) throw new Error("the fake platform API did not start");
  return {
    url: `http://${hostname}:${port}`,
    port,
    at(ms) {
      instant = ms;
    },
    view,
    setLoadBalancerMembers(id, counts) {
      members.set(id, counts, instant);
    },
    token,
    credentials: platformCredentials,
    async stop() {
      await app.stop(true);
    },
  };
}
