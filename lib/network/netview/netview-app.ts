/** The netview HTTP application: the shared base in its plain error style, and every route group. */
import { Elysia } from "elysia";
import type { Registry } from "prom-client";
import { apiDocsRoutes } from "../../foundation/http/api-docs-routes.ts";
import { createApp } from "../../foundation/http/create-app.ts";
import type { Logger } from "../../foundation/log/logger.ts";
import { metricsRoute } from "../../foundation/metrics/metrics-route.ts";
import { chassisRoutes } from "./chassis-routes.ts";
import type { Cluster, ClusterSet } from "./cluster.ts";
import { debugRoutes } from "./debug/debug-routes.ts";
import { FlowChangeLog } from "./debug/flow-changes.ts";
import { TraceLog } from "./debug/trace-log.ts";
import { NbCfgClock } from "./nb-cfg-clock.ts";
import type { NetviewOps } from "./netview-ops.ts";
import { buildOpenApiDocument, type OpenApiDocument, queryGuard, specPath } from "./openapi-document.ts";
import { opsCapabilities, opsRoutes } from "./ops-routes.ts";
import { ovsRoutes } from "./ovs-routes.ts";
import { parseNetviewBody } from "./request-body.ts";
import { type ServerSettings, systemRoutes } from "./system-routes.ts";
import { tableRoutes } from "./table-routes.ts";
import { viewRoutes } from "./views/view-routes.ts";

export interface NetviewAppOptions {
  clusters: ClusterSet;
  settings: ServerSettings;
  logger: Logger;
  registry: Registry;
  metricsEnabled: boolean;
  now?: () => number;
  /** History, snapshots, alerts, telemetry and writes (issue 17); their routes are left out without it. */
  ops?: NetviewOps;
  /** The recent traces of the debug routes (issue 16); a fresh one by default. */
  traces?: TraceLog;
  /** The recent logical-flow changes (issue 16); by default a fresh log watching every cluster. */
  flowChanges?: FlowChangeLog;
}

export function netviewApp(options: NetviewAppOptions) {
  const { clusters, settings } = options;
  const now = options.now ?? Date.now;
  const traces = options.traces ?? new TraceLog();
  let flowChanges = options.flowChanges;
  if (flowChanges === undefined) {
    const log = new FlowChangeLog(undefined, now);
    for (const cluster of clusters.all) log.watch(cluster);
    flowChanges = log;
  }
  const clocks = new Map<Cluster, NbCfgClock>(clusters.all.map((c) => [c, new NbCfgClock(c.sb.cache, now)]));
  const clockOf = (cluster: Cluster) => ({
    nowMs: now(),
    staleMs: settings.chassisStaleThresholdMs,
    generationSinceMs: clocks.get(cluster)?.generationSinceMs ?? null,
  });
  let built: { routes: number; document: OpenApiDocument } | undefined;
  const document = (): OpenApiDocument => {
    if (built === undefined || built.routes !== app.routes.length)
      built = { routes: app.routes.length, document: buildOpenApiDocument(app) };
    return built.document;
  };
  const app = createApp({ service: "svc-netview", logger: options.logger, errorStyle: "plain" })
    // Before the routes, so that they run for each of them.
    .onParse({ as: "global" }, parseNetviewBody)
    .onBeforeHandle({ as: "global" }, queryGuard(document))
    .get(specPath, () => document(), { detail: { hide: true } })
    .use(
      apiDocsRoutes({
        service: "netview",
        title: "netview API",
        path: "/api/v1/docs",
        specPath,
      }),
    )
    .use(metricsRoute(options.registry, options.metricsEnabled))
    .use(systemRoutes(clusters, settings, options.ops === undefined ? [] : opsCapabilities(options.ops)))
    .use(chassisRoutes(clusters, clockOf))
    // The switch routes exist only where a management address file was given (spec: opt-in).
    .use(
      clusters.all.some((c) => c.fleet !== undefined)
        ? ovsRoutes(clusters)
        : new Elysia({ name: "netview-ovs-off" }),
    )
    .use(tableRoutes(clusters))
    .use(viewRoutes(clusters, clockOf))
    .use(debugRoutes({ clusters, traces, clockOf, flowChanges, now }))
    .use(
      options.ops === undefined
        ? new Elysia({ name: "netview-ops-off" })
        : opsRoutes(options.ops, clusters, settings, { traces, clockOf }),
    );
  return app;
}
