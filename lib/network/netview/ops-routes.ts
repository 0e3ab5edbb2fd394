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
import { stateChangeGuard } from "./write/write-token.ts";

/** The capabilities the operations add; `changes`: silences, rule changes and snapshots are accepted with the token. */
export function opsCapabilities(ops: NetviewOps): string[] {
  return [
    "events",
    "ws",
    "snapshots",
    "telemetry",
    "alerts",
    "export",
    ...(ops.writeSettings.writeToken === undefined ? [] : ["changes"]),
  ];
}

export function opsRoutes(
  ops: NetviewOps,
  clusters: ClusterSet,
  settings: { wsAllowedOrigins: string[] },
  views: { traces: TraceLog; clockOf: (cluster: Cluster) => InventoryClock },
) {
  const guard = stateChangeGuard(ops.writeSettings.writeToken);
  return new Elysia({ name: "netview-ops" })
    .use(historyRoutes(ops.history, clusters, settings.wsAllowedOrigins))
    .use(snapshotRoutes(ops.snapshots, guard))
    .use(writeRoutes(ops.writes, ops.writeSettings))
    .use(telemetryRoutes(ops.telemetry))
    .use(alertRoutes({ engine: ops.alerts, clusters, guard, now: () => ops.telemetry.nowMs() }))
    .use(exportRoutes({ clusters, ...views, now: () => ops.telemetry.nowMs() }));
}
