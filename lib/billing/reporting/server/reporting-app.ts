import type { Sql } from "postgres";
import type { Registry } from "prom-client";
import { createApp } from "../../../foundation/http/create-app.ts";
import type { Logger } from "../../../foundation/log/logger.ts";
import { metricsRoute } from "../../../foundation/metrics/metrics-route.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Cloud } from "../clouds/clouds-file.ts";
import type { EventPartitions } from "../event-partitions.ts";
import { contractRoutes } from "../routes/contract-routes.ts";
import { ingestRoute } from "../routes/ingest-route.ts";
import { listRoutes } from "../routes/list-routes.ts";
import { probeRoutes } from "../routes/probe-routes.ts";
import { projectRoutes } from "../routes/project-routes.ts";
import { rebuildRoute } from "../routes/rebuild-route.ts";
import { relationRoutes } from "../routes/relation-routes.ts";
import { resourceTypesRoute } from "../routes/resource-types-route.ts";
import { summaryRoutes } from "../routes/summary-routes.ts";
import { type SyncSettings, syncRoute } from "../routes/sync-route.ts";
import type { HealthMonitor } from "./health-monitor.ts";
import type { ReportingMetrics } from "./reporting-metrics.ts";

export const reportingService = "svc-reporting";

interface ReportingAppDeps {
  logger: Logger;
  sql: Sql;
  partitions: EventPartitions;
  auth: Authenticator;
  health: HealthMonitor;
  registry: Registry;
  metrics: ReportingMetrics;
  metricsEnabled: boolean;
  requireSizeSchema: boolean;
  /** Relation types the cycle guard walks (SVC_REPORTING_ATTRIBUTING_RELATION_TYPES). */
  attributingRelationTypes: readonly string[];
  clouds: ReadonlyMap<string, Cloud>;
  sync: SyncSettings;
}

/** The reporting server's routes on the shared base. */
export function reportingApp(deps: ReportingAppDeps) {
  return createApp({ service: reportingService, logger: deps.logger })
    .use(contractRoutes())
    .use(probeRoutes(deps.health))
    .use(metricsRoute(deps.registry, deps.metricsEnabled))
    .use(ingestRoute(deps))
    .use(listRoutes(deps))
    .use(rebuildRoute(deps))
    .use(resourceTypesRoute(deps))
    .use(projectRoutes(deps))
    .use(relationRoutes(deps))
    .use(summaryRoutes(deps))
    .use(syncRoute(deps));
}
