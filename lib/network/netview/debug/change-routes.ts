/**
 * What changed and what depends on what, at both browse prefixes: `/debug/flow-diff` (the recent
 * logical-flow changes, flow-changes.ts) and `/impact/{db}/{table}/{uuid}` (impact.ts).
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "../browse-context.ts";
import type { InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { responses } from "../openapi-shapes.ts";
import { int, openapiParameters, type ParamSpec, readQuery, str } from "../query-params.ts";
import { checkTable } from "../table-json.ts";
import { nbTables, sbTables } from "../table-names.ts";
import { viewContext } from "../views/correlated-routes.ts";
import { datapathsNamed } from "../views/flows.ts";
import { flowDiffSchema, impactSchema } from "./debug-shapes.ts";
import type { FlowChange, FlowChangeLog } from "./flow-changes.ts";
import { impact } from "./impact.ts";

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

interface ChangeRoutesOptions {
  clusters: ClusterSet;
  flowChanges: FlowChangeLog;
  clockOf: (cluster: Cluster) => InventoryClock;
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
    app.get(
      `${prefix}/impact/:db/:table/:uuid`,
      (c: BrowseContext) => {
        const cluster = clusterOf(o.clusters, c);
        const db = paramOf(c, "db");
        const names: Record<string, string> | undefined =
          db === "nb" ? nbTables : db === "sb" ? sbTables : undefined;
        const table = names?.[paramOf(c, "table")];
        if (names === undefined || table === undefined) throw new NotFoundError("not found");
        const { ix } = viewContext(cluster, o.clockOf(cluster));
        const answer = impact(ix, db as "nb" | "sb", table, paramOf(c, "uuid"));
        if (answer === undefined) throw new NotFoundError("not found");
        return answer;
      },
      {
        detail: {
          tags,
          summary:
            "What depends on one NB or SB row: references both ways, affected ports, switches, routers, chassis, flows",
          description:
            "`{db}` is nb or sb, `{table}` a table route name (logical-switches, acls, port-groups, chassis, port-bindings, ...). `referenced_by` and `references` come from the schema's reference columns; `affected` lists the switch ports whose traffic the row decides (a switch's ports, a router's switches' ports, an ACL's or port group's ports, the ACLs using an address set, a load balancer's or NAT's users, a chassis's bound ports), their switches, routers and chassis, and how many logical flows ovn-northd derived from it (stage-hint) or installed on its datapath.",
          responses: responses(impactSchema, {
            404: "unknown db, table or uuid (or cluster)",
            503: "the databases have not been synced yet",
          }),
        },
      },
    );
  }
  return app;
}
