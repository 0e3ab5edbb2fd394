/** `/api/v1/telemetry/*`, for the default cluster and under `/api/v1/clusters/{name}`. */
import { Elysia } from "elysia";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { type BrowseContext, browsePrefixes, clusterOf } from "../browse-context.ts";
import { responses } from "../openapi-shapes.ts";
import { openapiParameters } from "../query-params.ts";
import type { ClusterTelemetry } from "./cluster-telemetry.ts";
import { heatmap, timeline } from "./propagation-tracker.ts";
import { raftHealth } from "./raft-probe.ts";
import { flowCounts, propagation, summary } from "./telemetry.ts";
import {
  flowCountsSchema,
  generationParams,
  heatmapSchema,
  propagationSchema,
  raftClusterSchema,
  raftHealthSchema,
  summarySchema,
  timelineSchema,
} from "./telemetry-shapes.ts";

const maxGenerations = 100;

/** `limit` of the propagation views: 1 to 100 generations, default 20. */
function limitOf(query: unknown): number {
  const value = (query as Record<string, unknown> | undefined)?.limit;
  if (value === undefined) return 20;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= maxGenerations))
    throw new ValidationError(`invalid query: limit: takes an integer from 1 to ${maxGenerations}`);
  return n;
}

type Context = BrowseContext & { query: unknown };

const errors = { 404: "unknown cluster" };

export function telemetryRoutes(telemetry: ClusterTelemetry) {
  const app = new Elysia({ name: "netview-telemetry" });
  const { clusters } = telemetry;
  for (const prefix of browsePrefixes) {
    const tags = ["telemetry", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    const base = `${prefix}/telemetry`;
    app
      .get(
        `${base}/summary`,
        (c: Context) => {
          const cluster = clusterOf(clusters, c);
          return summary(cluster, telemetry.inventory(cluster), telemetry.raftStatus(cluster));
        },
        {
          detail: {
            tags,
            summary: "Row counts, chassis states, bound ports, nb_cfg counters and raft state of a cluster",
            responses: responses(summarySchema, errors),
          },
        },
      )
      .get(
        `${base}/cluster`,
        (c: Context) => {
          const cluster = clusterOf(clusters, c);
          return telemetry.raftStatus(cluster).map((status) => ({ ...status, health: raftHealth(status) }));
        },
        {
          detail: {
            tags,
            summary:
              "Raft of the NB and SB from each member's _Server database: model, connected, leader, index, sid, cid, per configured remote",
            responses: responses(raftClusterSchema, errors),
          },
        },
      )
      .get(`${base}/flows`, (c: Context) => flowCounts(clusterOf(clusters, c).sb.cache), {
        detail: {
          tags,
          summary: "Logical flow counts by datapath, pipeline and table",
          responses: responses(flowCountsSchema, errors),
        },
      })
      .get(
        `${base}/raft-health`,
        (c: Context) => telemetry.raftStatus(clusterOf(clusters, c)).map(raftHealth),
        {
          detail: {
            tags,
            summary:
              "Raft health in a word per database: healthy, degraded, no_leader, unreachable, standalone",
            responses: responses(raftHealthSchema, errors),
          },
        },
      )
      .get(
        `${base}/propagation`,
        (c: Context) => {
          const cluster = clusterOf(clusters, c);
          return propagation(cluster, telemetry.generations(cluster));
        },
        {
          detail: {
            tags,
            summary: "nb_cfg in NB_Global, SB_Global and each Chassis_Private, with timestamps and delays",
            responses: responses(propagationSchema, errors),
          },
        },
      )
      .get(
        `${base}/propagation/heatmap`,
        (c: Context) => {
          const cluster = clusterOf(clusters, c);
          const names = telemetry.inventory(cluster).map((e) => e.name);
          return heatmap(telemetry.generations(cluster), names, limitOf(c.query));
        },
        {
          detail: {
            tags,
            summary: "Chassis × recent generations: milliseconds each chassis took",
            parameters: openapiParameters(generationParams),
            responses: responses(heatmapSchema, { ...errors, 400: "invalid limit" }),
          },
        },
      )
      .get(
        `${base}/propagation/timeline`,
        (c: Context) => timeline(telemetry.generations(clusterOf(clusters, c)), limitOf(c.query)),
        {
          detail: {
            tags,
            summary: "Recent generations, newest first: when each started, reached the SB, every chassis",
            parameters: openapiParameters(generationParams),
            responses: responses(timelineSchema, { ...errors, 400: "invalid limit" }),
          },
        },
      );
  }
  return app;
}
