/**
 * List and detail routes for every NB and SB table of the spec, read from the cluster's caches, at the
 * top level (default cluster) and under `/api/v1/clusters/{name}`.
 */
import { Elysia } from "elysia";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "./browse-context.ts";
import type { Cluster, ClusterSet } from "./cluster.ts";
import { listOf, responses, rowSchema } from "./openapi-shapes.ts";
import { jsonResponse, tableListJson, tableRow } from "./table-json.ts";
import { nbTables, sbTables } from "./table-names.ts";

interface DatabaseRoutes {
  segment: "nb" | "sb";
  label: string;
  tag: string;
  tables: Record<string, string>;
  client: (cluster: Cluster) => Cluster["nb"];
}

const databases: DatabaseRoutes[] = [
  { segment: "nb", label: "northbound", tag: "northbound", tables: nbTables, client: (c) => c.nb },
  { segment: "sb", label: "southbound", tag: "southbound", tables: sbTables, client: (c) => c.sb },
];

export function tableRoutes(clusters: ClusterSet) {
  const app = new Elysia({ name: "netview-tables" });
  for (const prefix of browsePrefixes) {
    const tags = prefix === "/api/v1" ? [] : ["clusters"];
    for (const db of databases) {
      for (const [route, table] of Object.entries(db.tables)) {
        const base = `${prefix}/${db.segment}/${route}`;
        app.get(
          base,
          (context: BrowseContext) => {
            const cache = db.client(clusterOf(clusters, context)).cache;
            return jsonResponse(tableListJson(cache, db.label, table));
          },
          {
            detail: {
              tags: [db.tag, ...tags],
              summary: `List ${table} rows`,
              responses: responses(listOf(rowSchema), {
                404: "unknown cluster, or the table is not in the server's schema",
                503: "the database has not been synced yet",
              }),
            },
          },
        );
        app.get(
          `${base}/:uuid`,
          (context: BrowseContext) => {
            const cache = db.client(clusterOf(clusters, context)).cache;
            return tableRow(cache, db.label, table, paramOf(context, "uuid"));
          },
          {
            detail: {
              tags: [db.tag, ...tags],
              summary: `One ${table} row by _uuid`,
              responses: responses(rowSchema, {
                404: "not found",
                503: "the database has not been synced yet",
              }),
            },
          },
        );
      }
    }
  }
  return app;
}
