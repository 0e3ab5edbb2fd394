/**
 * The debug audits of the cluster's state, at both browse prefixes: `/debug/port-diagnostics` and
 * `/{uuid}`. Each reads the cross-reference index and the chassis inventory (views/), and the live
 * interfaces when the chassis switches are monitored.
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../errors/svc-error.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "../browse-context.ts";
import type { InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { responses } from "../openapi-shapes.ts";
import { int, openapiParameters, type ParamSpec, readQuery, str } from "../query-params.ts";
import { viewContext } from "../views/correlated-routes.ts";
import { portDiagnosisSchema, portDiagnosticsSchema } from "./debug-shapes.ts";
import {
  portDiagnosis,
  portDiagnostics,
  type Severity,
  type SwitchInterfaces,
  severities,
} from "./port-diagnostics.ts";

/** Decision 327: 100 ports by default, at most 5000 in one answer. */
export const portLimit = { default: 100, max: 5000 } as const;

const portParams: ParamSpec[] = [
  {
    name: "severity",
    type: "string",
    enum: severities,
    description: "Only ports of this severity (the summary still counts every port)",
  },
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: portLimit.max,
    default: portLimit.default,
    description: `Most ports returned, worst first (default ${portLimit.default}, at most ${portLimit.max})`,
  },
];

const errors = {
  400: "invalid parameters",
  404: "unknown cluster",
  503: "the databases have not been synced yet",
};

/** The Interface rows of every connected chassis switch; undefined when none is monitored. */
function liveInterfaces(cluster: Cluster): SwitchInterfaces | undefined {
  if (cluster.fleet === undefined) return undefined;
  const out = new Map<string, readonly Row[]>();
  for (const m of cluster.fleet.members.values())
    if (m.client.cache.authoritative) out.set(m.systemId, m.client.cache.rows("Interface"));
  return out;
}

export function diagnosticsRoutes(clusters: ClusterSet, clockOf: (cluster: Cluster) => InventoryClock) {
  const app = new Elysia({ name: "netview-diagnostics" });
  const ctx = (c: BrowseContext) => {
    const cluster = clusterOf(clusters, c);
    return viewContext(cluster, clockOf(cluster));
  };
  for (const prefix of browsePrefixes) {
    const tags = ["debug", ...(prefix === "/api/v1" ? [] : ["clusters"])];
    app
      .get(
        `${prefix}/debug/port-diagnostics`,
        (c: BrowseContext & { request: Request }) => {
          const { ix, inventory, cluster } = ctx(c);
          const q = readQuery(c.request.url, portParams);
          const severity = str(q.severity) as Severity | undefined;
          return portDiagnostics(
            ix,
            inventory,
            { limit: int(q.limit) ?? portLimit.default, ...(severity === undefined ? {} : { severity }) },
            liveInterfaces(cluster),
          );
        },
        {
          detail: {
            tags,
            summary:
              "Logical switch ports with their problems: no binding, unbound, down, chassis down or lagging, requested-chassis and iface-id mismatches",
            description:
              "Every logical switch port is checked against its southbound binding, the chassis it is bound to (liveness as in the chassis inventory) and, with --ovs-mgmt-addr-file, the live interfaces carrying its iface-id. `severity` and `limit` narrow `ports`; `summary` always counts every port. Worst first, then by name.",
            parameters: openapiParameters(portParams),
            responses: responses(portDiagnosticsSchema, errors),
          },
        },
      )
      .get(
        `${prefix}/debug/port-diagnostics/:uuid`,
        (c: BrowseContext) => {
          const { ix, inventory, cluster } = ctx(c);
          const d = portDiagnosis(ix, inventory, paramOf(c, "uuid"), liveInterfaces(cluster));
          if (d === undefined) throw new NotFoundError("not found");
          return d;
        },
        {
          detail: {
            tags,
            summary: "One logical switch port's diagnosis, by its NB uuid or its SB port binding's uuid",
            responses: responses(portDiagnosisSchema, { ...errors, 404: "not found (or unknown cluster)" }),
          },
        },
      );
  }
  return app;
}
