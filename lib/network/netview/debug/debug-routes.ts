/** The debug analyses of issue 16 (capability `debug`), one plugin per part, mounted by netviewApp. */
import { Elysia } from "elysia";
import type { InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { changeRoutes } from "./change-routes.ts";
import { diagnosticsRoutes } from "./diagnostics-routes.ts";
import type { FlowChangeLog } from "./flow-changes.ts";
import { pathRoutes } from "./path-routes.ts";
import type { TraceLog } from "./trace-log.ts";
import { traceRoutes } from "./trace-routes.ts";

interface DebugRoutesOptions {
  clusters: ClusterSet;
  traces: TraceLog;
  clockOf: (cluster: Cluster) => InventoryClock;
  flowChanges: FlowChangeLog;
  now?: () => number;
}

export function debugRoutes(o: DebugRoutesOptions) {
  return new Elysia({ name: "netview-debug" })
    .use(traceRoutes({ clusters: o.clusters, log: o.traces, ...(o.now === undefined ? {} : { now: o.now }) }))
    .use(diagnosticsRoutes(o.clusters, o.clockOf))
    .use(pathRoutes({ clusters: o.clusters, clockOf: o.clockOf, traces: o.traces, now: o.now ?? Date.now }))
    .use(changeRoutes({ clusters: o.clusters, flowChanges: o.flowChanges, clockOf: o.clockOf }));
}
