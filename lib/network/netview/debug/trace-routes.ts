/**
 * `GET /api/v1/debug/trace` (a packet walked through the cluster's logical flows, as ovn-trace would),
 * `/debug/traces` (the recent ones) and `/debug/traces/{id}`, at both browse prefixes. `format`
 * chooses JSON (default) or ovn-trace's own text (`detailed`, `summary`, `minimal`).
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import { formatTrace } from "../../ovn-logic/trace-format.ts";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "../browse-context.ts";
import type { ClusterSet } from "../cluster.ts";
import { listOf, responses } from "../openapi-shapes.ts";
import { int, openapiParameters, type ParamSpec, readQuery, str } from "../query-params.ts";
import { checkTable } from "../table-json.ts";
import { traceSchema, traceSummarySchema } from "./debug-shapes.ts";
import type { TraceLog } from "./trace-log.ts";
import { packetParams, traceOptionParams } from "./trace-request.ts";
import { runTrace } from "./trace-run.ts";
import { aclIndex, traceView } from "./trace-view.ts";

const formats = ["json", "detailed", "summary", "minimal"] as const;

const traceParams: ParamSpec[] = [
  ...packetParams,
  ...traceOptionParams,
  {
    name: "format",
    type: "string",
    enum: formats,
    default: "json",
    description: "json, or ovn-trace's text: detailed, summary, minimal",
  },
];

const listParams: ParamSpec[] = [
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: 100,
    default: 20,
    description: "How many, newest first",
  },
];

export interface TraceRoutesOptions {
  clusters: ClusterSet;
  log: TraceLog;
  now?: () => number;
}

export function traceRoutes(o: TraceRoutesOptions) {
  const { clusters, log } = o;
  const now = o.now ?? Date.now;
  const app = new Elysia({ name: "netview-trace" });
  for (const prefix of browsePrefixes) {
    const tags = ["debug", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    app.get(
      `${prefix}/debug/trace`,
      (context: BrowseContext & { request: Request }) => {
        const cluster = clusterOf(clusters, context);
        const query = readQuery(context.request.url, traceParams);
        const started = performance.now();
        const { request, result } = runTrace(cluster, query);
        const format = str(query.format) ?? "json";
        if (format !== "json") {
          return new Response(formatTrace(result, format as "detailed" | "summary" | "minimal"), {
            headers: { "content-type": "text/plain; charset=utf-8" },
          });
        }
        checkTable(cluster.nb.cache, "northbound", "ACL");
        const view = traceView(result, request.microflow, aclIndex(cluster.nb.cache));
        const record = log.record({
          cluster: cluster.name,
          view,
          durationMs: performance.now() - started,
          atMs: now(),
        });
        return {
          id: record.id,
          at: record.at,
          cluster: record.cluster,
          duration_ms: record.duration_ms,
          ...view,
        };
      },
      {
        detail: {
          tags,
          summary: "Trace a packet through the logical flows (as ovn-trace)",
          description:
            "The packet is a microflow in OVN's expression language, or an inport with header fields (addresses default from the ports). Each stage, table, priority, matching flow and its actions, then the outcome: where copies were delivered, where and why others stopped (with the ACL behind an ACL stage). format=detailed|summary|minimal answers ovn-trace's text instead.",
          parameters: openapiParameters(traceParams),
          responses: responses(
            traceSchema,
            {
              400: "invalid parameters, or a microflow that does not pin down one packet",
              404: "unknown cluster, port or datapath",
              503: "the southbound has not been synced yet",
            },
            { text: "with format=detailed, summary or minimal: what ovn-trace prints for the same packet" },
          ),
        },
      },
    );
    app.get(
      `${prefix}/debug/traces`,
      (context: BrowseContext & { request: Request }) => {
        const cluster = clusterOf(clusters, context);
        const query = readQuery(context.request.url, listParams);
        return log.list(int(query.limit) ?? 20, cluster.name);
      },
      {
        detail: {
          tags,
          summary: "Recent traces, newest first (the last 100 are kept)",
          parameters: openapiParameters(listParams),
          responses: responses(listOf(traceSummarySchema), { 400: "invalid limit" }),
        },
      },
    );
    app.get(
      `${prefix}/debug/traces/:id`,
      (context: BrowseContext) => {
        const cluster = clusterOf(clusters, context);
        const record = log.get(paramOf(context, "id"));
        if (record === undefined || record.cluster !== cluster.name) throw new NotFoundError("not found");
        return {
          id: record.id,
          at: record.at,
          cluster: record.cluster,
          duration_ms: record.duration_ms,
          ...record.view,
        };
      },
      {
        detail: {
          tags,
          summary: "One recent trace by id",
          responses: responses(traceSchema, { 404: "not found" }),
        },
      },
    );
  }
  return app;
}
