/** The routes of netview's operations (issue 17), one plugin per part, mounted by netviewApp. */
import { Elysia } from "elysia";
import { alertRoutes } from "./alerts/alert-routes.ts";
import type { InventoryClock } from "./chassis-inventory.ts";
import type { Cluster, ClusterSet } from "./cluster.ts";
import type { TraceLog } from "./debug/trace-log.ts";
import { exportRoutes } from "./export/export-routes.ts";
import { historyRoutes } from "./history/history-routes.ts";
import type { NetviewOps } from "./netview-ops.ts";
import { snapshotRoutes } from "./snapshots/snapshot-routes.ts";
import { telemetryRoutes } from "./telemetry/telemetry-routes.ts";
import { writeRoutes } from "./write/write-routes.ts";

export const opsCapabilities = ["events", "ws", "snapshots", "telemetry", "alerts", "export"] as const;

export function opsRoutes(
  ops: NetviewOps,
  clusters: ClusterSet,
  settings: { wsAllowedOrigins: string[] },
  views: { traces: TraceLog; clockOf: (cluster: Cluster) => InventoryClock },
) {
  return new Elysia({ name: "netview-ops" })
    .use(historyRoutes(ops.history, clusters, settings.wsAllowedOrigins))
    .use(snapshotRoutes(ops.snapshots))
    .use(writeRoutes(ops.writes, ops.writeSettings))
    .use(telemetryRoutes(ops.telemetry))
    .use(alertRoutes(ops.alerts, clusters, () => ops.telemetry.nowMs()))
    .use(exportRoutes({ clusters, ...views, now: () => ops.telemetry.nowMs() }));
}
