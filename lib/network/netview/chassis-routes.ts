/** `/sb/chassis-inventory` list and detail, computed from the SB cache of the cluster. */
import { Elysia } from "elysia";
import { NotFoundError } from "../../foundation/errors/svc-error.ts";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "./browse-context.ts";
import { chassisDetail, chassisInventory, type InventoryClock } from "./chassis-inventory.ts";
import type { Cluster, ClusterSet } from "./cluster.ts";
import { inventoryDetailSchema, inventoryEntrySchema, listOf, responses } from "./openapi-shapes.ts";
import { checkTable } from "./table-json.ts";

export function chassisRoutes(clusters: ClusterSet, clockOf: (cluster: Cluster) => InventoryClock) {
  const app = new Elysia({ name: "netview-chassis-inventory" });
  for (const prefix of browsePrefixes) {
    const tags = ["chassis", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    app.get(
      `${prefix}/sb/chassis-inventory`,
      (context: BrowseContext) => {
        const cluster = clusterOf(clusters, context);
        checkTable(cluster.sb.cache, "southbound", "Chassis");
        return chassisInventory(cluster.sb.cache, clockOf(cluster));
      },
      {
        detail: {
          tags,
          summary: "Chassis inventory: one entry per chassis",
          responses: responses(listOf(inventoryEntrySchema), {
            503: "the southbound has not been synced yet",
          }),
        },
      },
    );
    app.get(
      `${prefix}/sb/chassis-inventory/:name`,
      (context: BrowseContext) => {
        const cluster = clusterOf(clusters, context);
        checkTable(cluster.sb.cache, "southbound", "Chassis");
        const detail = chassisDetail(cluster.sb.cache, paramOf(context, "name"), clockOf(cluster));
        if (detail === undefined) throw new NotFoundError("not found");
        return detail;
      },
      {
        detail: {
          tags,
          summary: "One chassis by system-id, with config copies and bound ports",
          responses: responses(inventoryDetailSchema, { 404: "not found" }),
        },
      },
    );
  }
  return app;
}
