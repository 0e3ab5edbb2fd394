/**
 * The debug audits of the cluster's state, at both browse prefixes: `/debug/port-diagnostics` and
 * `/{uuid}`, `/debug/acl-audit`, `/debug/stale-entries`. Each reads the cross-reference index and the chassis inventory (views/), and the live
 * interfaces when the chassis switches are monitored.
 */
import { Elysia } from "elysia";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { type BrowseContext, browsePrefixes, clusterOf, paramOf } from "../browse-context.ts";
import type { InventoryClock } from "../chassis-inventory.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import { responses } from "../openapi-shapes.ts";
import { int, openapiParameters, type ParamSpec, readQuery, str } from "../query-params.ts";
import { viewContext } from "../views/correlated-routes.ts";
import { type AclAudit, type AclAuditQuery, aclAudit, aclAuditCap, isAclScope } from "./acl-audit.ts";
import {
  aclAuditSchema,
  portDiagnosisSchema,
  portDiagnosticsSchema,
  staleEntriesSchema,
} from "./debug-shapes.ts";
import {
  portDiagnosis,
  portDiagnostics,
  type Severity,
  type SwitchInterfaces,
  severities,
} from "./port-diagnostics.ts";
import { type StaleKind, staleEntries, staleKinds, staleLimit } from "./stale-entries.ts";

/** Decision 327: 100 ports by default, at most 5000 in one answer. */
const portLimit = { default: 100, max: 5000 } as const;

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

const auditParams: ParamSpec[] = [
  {
    name: "scope",
    type: "string",
    description: "Only the ACLs of this switch or port group (name or uuid); 404 when there is none such",
  },
  {
    name: "kind",
    type: "string",
    enum: ["shadowed", "conflicting"],
    description: "Only findings of this kind",
  },
];

const staleParams: ParamSpec[] = [
  { name: "kind", type: "string", enum: staleKinds, description: "Only entries of this kind" },
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: staleLimit.max,
    default: staleLimit.default,
    description: `Most entries returned (default ${staleLimit.default}, at most ${staleLimit.max})`,
  },
];

/** One audit per index (so per pair of NB and SB versions) and question. */
const audits = new WeakMap<object, Map<string, AclAudit>>();

const errors = {
  400: "invalid parameters",
  404: "unknown cluster",
  503: "the databases have not been synced yet",
};

/** The Interface rows of every connected chassis switch; undefined when none is monitored. */
export function liveInterfaces(cluster: Cluster): SwitchInterfaces | undefined {
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
      )
      .get(
        `${prefix}/debug/acl-audit`,
        (c: BrowseContext & { request: Request }) => {
          const { ix } = ctx(c);
          const q = readQuery(c.request.url, auditParams);
          const query: AclAuditQuery = {
            ...(str(q.scope) === undefined ? {} : { scope: str(q.scope) as string }),
            ...(str(q.kind) === undefined ? {} : { kind: str(q.kind) as "shadowed" | "conflicting" }),
          };
          // A typo must not read as "no findings" (issue 28 item 11).
          if (query.scope !== undefined && !isAclScope(ix, query.scope))
            throw new NotFoundError(
              `unknown scope: no logical switch or port group is named ${JSON.stringify(query.scope)} or has that uuid`,
            );
          const key = JSON.stringify([query.scope, query.kind]);
          let memo = audits.get(ix);
          if (memo === undefined) {
            memo = new Map();
            audits.set(ix, memo);
          }
          const hit = memo.get(key) ?? aclAudit(ix, query);
          memo.set(key, hit);
          return hit;
        },
        {
          detail: {
            tags,
            summary: "Shadowed and conflicting ACLs, compared within one switch or port group",
            description: `An ACL is shadowed when ACLs of higher priority in the same scope and stage (direction, apply-after-lb, tier) already match every packet it matches; two ACLs conflict when they have the same priority, share packets and disagree (allow vs drop/reject vs pass). Matches are compared exactly as sets of packets; ACLs that do not parse or are too large to compare are listed in \`unchecked\`. At most ${aclAuditCap} findings: \`truncated\` is true when there were more.`,
            parameters: openapiParameters(auditParams),
            responses: responses(aclAuditSchema, {
              ...errors,
              404: "unknown cluster, or no switch or port group is the scope",
            }),
          },
        },
      )
      .get(
        `${prefix}/debug/stale-entries`,
        (c: BrowseContext & { request: Request }) => {
          const { ix } = ctx(c);
          const q = readQuery(c.request.url, staleParams);
          const kind = str(q.kind) as StaleKind | undefined;
          return staleEntries(ix, {
            limit: int(q.limit) ?? staleLimit.default,
            ...(kind === undefined ? {} : { kind }),
          });
        },
        {
          detail: {
            tags,
            summary:
              "Stale MAC bindings and FDB entries, orphaned port bindings, datapaths and Chassis_Private rows",
            description:
              "MAC bindings: `datapath_gone`, `port_gone` (the router port is gone), `ip_unowned` (no port of a segment where every host is declared has the IP), `mac_mismatch` (the IP's port has another MAC). FDB: `datapath_gone`, `port_gone`, `mac_owned_elsewhere` (another port declares the MAC). Port bindings without a northbound port and datapaths without a northbound switch or router (`no_nb_port`, `no_nb_owner`: ovn-northd did not clean up), Chassis_Private rows without a chassis. `summary` counts every entry, whatever kind and limit.",
            parameters: openapiParameters(staleParams),
            responses: responses(staleEntriesSchema, errors),
          },
        },
      );
  }
  return app;
}
