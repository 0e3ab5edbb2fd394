/**
 * What changed and what depends on what, at both browse prefixes: `/debug/flow-diff` (the recent
 * logical-flow changes, flow-changes.ts).
 */
import { Elysia } from "elysia";
import { type BrowseContext, browsePrefixes, clusterOf } from "../browse-context.ts";
import type { ClusterSet } from "../cluster.ts";
import { responses } from "../openapi-shapes.ts";
import { int, openapiParameters, type ParamSpec, readQuery, str } from "../query-params.ts";
import { checkTable } from "../table-json.ts";
import { datapathsNamed } from "../views/flows.ts";
import { flowDiffSchema } from "./debug-shapes.ts";
import type { FlowChange, FlowChangeLog } from "./flow-changes.ts";

const flowDiffParams: ParamSpec[] = [
  {
    name: "since",
    type: "integer",
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: "Only changes with a seq above this (the last_seq of an earlier answer)",
  },
  { name: "datapath", type: "string", description: "Datapath name, NB or SB uuid, or uuid prefix" },
  { name: "stage", type: "string", description: "Stage name, e.g. ls_in_acl" },
  { name: "change", type: "string", enum: ["added", "removed", "modified"], description: "Only this kind" },
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: "Most changes, newest first",
  },
];

export interface ChangeRoutesOptions {
  clusters: ClusterSet;
  flowChanges: FlowChangeLog;
}

export function changeRoutes(o: ChangeRoutesOptions) {
  const app = new Elysia({ name: "netview-changes" });
  for (const prefix of browsePrefixes) {
    const tags = ["debug", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    app.get(
      `${prefix}/debug/flow-diff`,
      (c: BrowseContext & { request: Request }) => {
        const cluster = clusterOf(o.clusters, c);
        const q = readQuery(c.request.url, flowDiffParams);
        checkTable(cluster.sb.cache, "southbound", "Logical_Flow");
        const datapath = str(q.datapath);
        const since = int(q.since);
        const stage = str(q.stage);
        const change = str(q.change) as FlowChange["change"] | undefined;
        return o.flowChanges.list({
          cluster: cluster.name,
          limit: int(q.limit) ?? 100,
          ...(since === undefined ? {} : { since }),
          ...(stage === undefined ? {} : { stage }),
          ...(change === undefined ? {} : { change }),
          ...(datapath === undefined ? {} : { datapaths: datapathsNamed(cluster.sb.cache, datapath) }),
        });
      },
      {
        detail: {
          tags,
          summary: "Recent logical-flow changes from the southbound monitor, newest first",
          description:
            "Every Logical_Flow added, removed or modified since the server's first sync, kept in memory (the last `capacity`; `dropped` counts those pushed out). Changes of one monitor notification share a `txn`; a modified flow carries what it was `before`. Poll with `since=<last_seq>` for what is new.",
          parameters: openapiParameters(flowDiffParams),
          responses: responses(flowDiffSchema, {
            400: "invalid parameters",
            404: "unknown cluster",
            503: "the southbound has not been synced yet",
          }),
        },
      },
    );
  }
  return app;
}
