/** Health, readiness, capabilities and the cluster list. */
import { Elysia } from "elysia";
import type { OvsdbClient } from "../ovsdb/ovsdb-client.ts";
import { type Cluster, type ClusterSet, isStale } from "./cluster.ts";
import {
  capabilitiesSchema,
  clusterEntrySchema,
  healthSchema,
  listOf,
  readySchema,
  responses,
} from "./openapi-shapes.ts";
import { nbTables, sbTables } from "./table-names.ts";

export interface ServerSettings {
  writeEnabled: boolean;
  wsAllowedOrigins: string[];
  chassisStaleThresholdMs: number;
}

function databaseStatus(client: OvsdbClient) {
  const schema = client.cache.schema;
  return {
    state: client.state,
    authoritative: client.cache.authoritative,
    schema: schema === undefined ? null : { name: schema.name, version: schema.version },
    last_error: client.lastError ?? null,
  };
}

function missingTables(client: OvsdbClient, tables: Record<string, string>): string[] | null {
  const schema = client.cache.schema;
  if (schema === undefined) return null;
  return Object.entries(tables)
    .filter(([, table]) => schema.tables[table] === undefined)
    .map(([route]) => route);
}

function clusterEntry(cluster: Cluster, clusters: ClusterSet) {
  return {
    name: cluster.name,
    default: cluster === clusters.defaultCluster,
    stale: isStale(cluster),
    ready: cluster.everSynced && !cluster.suspended,
    nb: databaseStatus(cluster.nb),
    sb: databaseStatus(cluster.sb),
    ovs: { enabled: cluster.fleet !== undefined, chassis: cluster.fleet?.members.size ?? 0 },
  };
}

/** `extra`: capabilities of route groups mounted beside these (netview's operations). */
export function systemRoutes(clusters: ClusterSet, settings: ServerSettings, extra: readonly string[] = []) {
  return new Elysia({ name: "netview-system" })
    .get("/healthz", () => ({ status: "ok" }), {
      detail: { tags: ["system"], summary: "Liveness", responses: responses(healthSchema) },
    })
    .get(
      "/readyz",
      ({ set }) => {
        // Not ready is an answer, not a fault: answered here rather than thrown, so that a probe
        // polling through a long first sync does not log an error (with its stack) every time.
        for (const cluster of clusters.all) {
          const waiting = cluster.suspended
            ? "monitors suspended"
            : cluster.everSynced
              ? undefined
              : "initial sync not done";
          if (waiting !== undefined) {
            set.status = 503;
            return { error: `cluster ${cluster.name}: ${waiting}` };
          }
        }
        return { status: "ready" };
      },
      {
        detail: {
          tags: ["system"],
          summary: "Readiness: every cluster's NB and SB synced once",
          responses: responses(readySchema, {
            503: "a cluster has not completed its first sync, or a loaded snapshot suspends its monitors",
          }),
        },
      },
    )
    .get(
      "/api/v1/capabilities",
      () => {
        const cluster = clusters.defaultCluster;
        const capabilities = ["nb", "sb", "chassis-inventory", "clusters", "debug"];
        if (cluster.fleet !== undefined) capabilities.push("ovs");
        if (settings.writeEnabled) capabilities.push("write");
        capabilities.push(...extra);
        return {
          mode: settings.writeEnabled ? "read-write" : "read-only",
          write_enabled: settings.writeEnabled,
          capabilities,
          ovs: { enabled: cluster.fleet !== undefined, chassis: cluster.fleet?.members.size ?? 0 },
          clusters: clusters.all.map((c) => c.name),
          default_cluster: cluster.name,
          chassis_stale_threshold_ms: settings.chassisStaleThresholdMs,
          ws_allowed_origins: settings.wsAllowedOrigins,
          missing_tables: {
            nb: missingTables(cluster.nb, nbTables),
            sb: missingTables(cluster.sb, sbTables),
          },
        };
      },
      {
        detail: {
          tags: ["system"],
          summary: "Active capabilities and mode",
          responses: responses(capabilitiesSchema),
        },
      },
    )
    .get("/api/v1/clusters", () => clusters.all.map((c) => clusterEntry(c, clusters)), {
      detail: {
        tags: ["system"],
        summary: "Configured clusters and the state of their connections",
        responses: responses(listOf(clusterEntrySchema)),
      },
    })
    .get(
      "/api/v1/clusters/:cluster",
      ({ params }) => clusterEntry(clusters.resolve(params.cluster), clusters),
      {
        detail: {
          tags: ["system", "clusters"],
          summary: "One configured cluster and the state of its connections",
          responses: responses(clusterEntrySchema, { 404: "unknown cluster" }),
        },
      },
    );
}
