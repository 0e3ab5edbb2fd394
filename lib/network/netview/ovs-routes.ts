/**
 * Live switch state per chassis (only with `--ovs-mgmt-addr-file`): fleet status and health, the
 * nineteen Open_vSwitch tables, and interface correlation. A chassis not in the mapping is 404; a
 * mapped chassis whose switch database is not synced is 503 `chassis unreachable`.
 */
import { Elysia } from "elysia";
import { NotFoundError, UnavailableError } from "../../foundation/errors/svc-error.ts";
import type { Row } from "../ovsdb/datum.ts";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "./browse-context.ts";
import type { ClusterSet } from "./cluster.ts";
import { correlateInterface } from "./interface-correlation.ts";
import {
  correlationSchema,
  fleetHealthSchema,
  fleetStatusSchema,
  listOf,
  responses,
  rowSchema,
} from "./openapi-shapes.ts";
import type { FleetMember, OvsFleet } from "./ovs-fleet.ts";
import { checkTable } from "./table-json.ts";
import { ovsTables } from "./table-names.ts";

/** Key material must never be served: the SSL table's private key is dropped from every row. */
function servable(table: string, row: Row): Row {
  if (table !== "SSL") return row;
  const { private_key: _dropped, ...rest } = row;
  return rest as Row;
}

function fleetOf(clusters: ClusterSet, context: BrowseContext): OvsFleet {
  const fleet = clusterOf(clusters, context).fleet;
  if (fleet === undefined) throw new NotFoundError("live switch state is not enabled (--ovs-mgmt-addr-file)");
  return fleet;
}

function memberOf(fleet: OvsFleet, context: BrowseContext): FleetMember {
  const member = fleet.members.get(paramOf(context, "chassis"));
  if (member === undefined) throw new NotFoundError("unknown chassis");
  return member;
}

function tableOf(context: BrowseContext): string {
  const table = ovsTables[paramOf(context, "table")];
  if (table === undefined) throw new NotFoundError("unknown table");
  return table;
}

function reachable(member: FleetMember): FleetMember {
  if (!member.client.cache.authoritative) throw new UnavailableError("chassis unreachable");
  return member;
}

export function ovsRoutes(clusters: ClusterSet) {
  const app = new Elysia({ name: "netview-ovs" });
  for (const prefix of browsePrefixes) {
    const tags = ["switch", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    const base = `${prefix}/ovs`;
    app
      .get(base, (context: BrowseContext) => fleetOf(clusters, context).status(), {
        detail: {
          tags,
          summary: "Fleet status: each chassis's management address and connection",
          responses: responses(fleetStatusSchema),
        },
      })
      .get(`${base}/health`, (context: BrowseContext) => fleetOf(clusters, context).health(), {
        detail: {
          tags,
          summary: "Fleet health: totals, down/error/drop interfaces by delta, members",
          responses: responses(fleetHealthSchema),
        },
      })
      .get(
        `${base}/:chassis/:table`,
        (context: BrowseContext) => {
          const member = memberOf(fleetOf(clusters, context), context);
          const table = tableOf(context);
          const cache = reachable(member).client.cache;
          checkTable(cache, "switch", table);
          return cache.rows(table).map((row) => servable(table, row));
        },
        {
          detail: {
            tags,
            summary: "Rows of one switch table on one chassis",
            responses: responses(listOf(rowSchema), {
              404: "unknown chassis or table",
              503: "chassis unreachable",
            }),
          },
        },
      )
      .get(
        `${base}/:chassis/:table/:uuid`,
        (context: BrowseContext) => {
          const member = memberOf(fleetOf(clusters, context), context);
          const table = tableOf(context);
          const cache = reachable(member).client.cache;
          checkTable(cache, "switch", table);
          const row = cache.get(table, paramOf(context, "uuid"));
          if (row === undefined) throw new NotFoundError("not found");
          return servable(table, row);
        },
        {
          detail: {
            tags,
            summary: "One switch row by _uuid",
            responses: responses(rowSchema, {
              404: "unknown chassis, table or uuid",
              503: "chassis unreachable",
            }),
          },
        },
      )
      .get(
        `${base}/:chassis/interface/:uuid/correlation`,
        (context: BrowseContext) => {
          const cluster = clusterOf(clusters, context);
          const fleet = fleetOf(clusters, context);
          const member = reachable(memberOf(fleet, context));
          const iface = member.client.cache.get("Interface", paramOf(context, "uuid"));
          if (iface === undefined) throw new NotFoundError("not found");
          return correlateInterface(
            iface,
            member.systemId,
            cluster.sb.cache,
            fleet.errorsIncreased(member.systemId, iface),
          );
        },
        {
          detail: {
            tags,
            summary: "Correlate a live interface with its southbound port binding",
            responses: responses(correlationSchema, {
              404: "unknown chassis or interface",
              503: "chassis unreachable",
            }),
          },
        },
      );
  }
  return app;
}
