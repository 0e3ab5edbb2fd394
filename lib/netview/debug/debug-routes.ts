/** The debug analyses of issue 16 (capability `debug`), one plugin per part, mounted by netviewApp. */
import { Elysia } from "elysia";
import type { ClusterSet } from "../cluster.ts";
import type { TraceLog } from "./trace-log.ts";
import { traceRoutes } from "./trace-routes.ts";

export interface DebugRoutesOptions {
  clusters: ClusterSet;
  traces: TraceLog;
  now?: () => number;
}

export function debugRoutes(o: DebugRoutesOptions) {
  return new Elysia({ name: "netview-debug" }).use(
    traceRoutes({ clusters: o.clusters, log: o.traces, ...(o.now === undefined ? {} : { now: o.now }) }),
  );
}
