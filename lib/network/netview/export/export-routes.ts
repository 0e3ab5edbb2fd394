/** `/api/v1/export/topology` (and under a cluster's prefix) and `/api/v1/export/trace/{id}`: documents to keep. */
import { Elysia } from "elysia";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import { type BrowseContext, browsePrefixes, clusterOf } from "../browse-context.ts";
import type { InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import type { TraceLog } from "../debug/trace-log.ts";
import { responses } from "../openapi-shapes.ts";
import { jsonResponse } from "../table-json.ts";
import { viewContext } from "../views/correlated-routes.ts";
import { topologyExportSchema, traceExportSchema } from "./export-shapes.ts";
import { topologyExport } from "./topology-export.ts";

const attachment = (document: unknown, filename: string) => {
  const response = jsonResponse(JSON.stringify(document));
  response.headers.set("content-disposition", `attachment; filename="${filename}"`);
  return response;
};

export function exportRoutes(options: {
  clusters: ClusterSet;
  clockOf: (cluster: Cluster) => InventoryClock;
  traces: TraceLog;
  now: () => number;
}) {
  const { clusters, clockOf, traces, now } = options;
  const app = new Elysia({ name: "netview-export" });
  for (const prefix of browsePrefixes) {
    app.get(
      `${prefix}/export/topology`,
      (context: BrowseContext) => {
        const cluster = clusterOf(clusters, context);
        const at = new Date(now()).toISOString();
        return attachment(
          topologyExport(viewContext(cluster, clockOf(cluster)), at),
          `netview-topology-${cluster.name}-${at.replace(/[:.]/g, "-")}.json`,
        );
      },
      {
        detail: {
          tags: ["export", ...(prefix === "/api/v1" ? [] : ["clusters"])],
          summary:
            "The logical topology as one document: what /topology, /topology/gateway, /topology/nat and /topology/load-balancers answer",
          responses: responses(topologyExportSchema, { 404: "unknown cluster" }),
        },
      },
    );
  }
  return app.get(
    "/api/v1/export/trace/:id",
    ({ params }) => {
      const record = traces.get(params.id);
      if (record === undefined) throw new NotFoundError("not found");
      return attachment(
        { format: "netview-trace", version: 1, ...record },
        `netview-trace-${record.id}.json`,
      );
    },
    {
      detail: {
        tags: ["export"],
        summary: "One recent trace (GET /api/v1/debug/traces lists them) as a document to keep",
        responses: responses(traceExportSchema, { 404: "not found (no longer among the recent traces)" }),
      },
    },
  );
}
