/** OpenAPI descriptions of the debug answers (see openapi-shapes.ts for why they are not Elysia schemas). */
import { issueCodes } from "./port-diagnostics.ts";

type JsonSchema = Record<string, unknown>;

const s = (type: string, description?: string): JsonSchema =>
  description === undefined ? { type } : { type, description };
const n = (type: string): JsonSchema => ({ type: [type, "null"] });
/** An object with exactly these members: the tests check every answer against it (response-contract.ts). */
const obj = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...(description === undefined ? {} : { description }),
});
const arr = (items: JsonSchema): JsonSchema => ({ type: "array", items });

const traceStageSchema = obj({
  datapath: s("string"),
  datapath_uuid: s("string"),
  pipeline: { enum: ["ingress", "egress"] },
  table: s("integer"),
  stage: n("string"),
  flow_uuid: n("string"),
  priority: n("integer"),
  match: n("string"),
  source: n("string"),
  actions: arr(s("string")),
});

const aclRefSchema = obj({
  uuid: s("string"),
  direction: s("string"),
  priority: s("integer"),
  match: s("string"),
  action: s("string"),
  scope: {
    type: ["object", "null"],
    properties: { kind: { enum: ["logical_switch", "port_group"] }, name: s("string"), uuid: s("string") },
  },
});

const traceOutcomeSchema = obj({
  verdict: { enum: ["delivered", "dropped", "partially_delivered"] },
  delivered: arr(obj({ port: s("string"), datapath: s("string"), type: s("string") })),
  stopped: arr(
    obj({
      reason: { enum: ["no_match", "drop_action", "reject_action", "no_forwarding_action", "loop", "error"] },
      detail: s("string"),
      stage: { oneOf: [traceStageSchema, { type: "null" }] },
      acl: { oneOf: [aclRefSchema, { type: "null" }] },
    }),
  ),
});

const treeNode: JsonSchema = obj({ type: s("string"), text: s("string"), children: arr({ type: "object" }) });

export const traceSchema = obj({
  id: s("string"),
  at: s("string", "RFC 3339"),
  cluster: s("string"),
  duration_ms: s("number"),
  datapath: s("string"),
  inport: s("string"),
  microflow: s("string", "the packet in OVN's expression language"),
  flow: s("string", "the microflow as ovn-trace's first line prints it"),
  outcome: traceOutcomeSchema,
  stages: arr(traceStageSchema),
  tree: arr(treeNode),
  text: s("string", "ovn-trace --detailed output for the same packet"),
});

export const traceSummarySchema = obj({
  id: s("string"),
  at: s("string"),
  cluster: s("string"),
  datapath: s("string"),
  inport: s("string"),
  microflow: s("string"),
  verdict: s("string"),
  delivered: arr(s("string")),
  duration_ms: s("number"),
});

const issueSchema = obj({
  code: { enum: [...issueCodes] },
  severity: { enum: ["warning", "error"] },
  message: s("string"),
});

const interfaceMembers = {
  chassis: s("string", "system-id"),
  uuid: s("string"),
  name: s("string"),
  link_state: n("string"),
  ofport: n("integer"),
};
const interfaceSchema = obj(interfaceMembers);

export const portDiagnosisSchema = obj({
  uuid: s("string", "the logical switch port"),
  name: s("string"),
  type: s("string"),
  switch: { oneOf: [obj({ uuid: s("string"), name: s("string") }), { type: "null" }] },
  enabled: n("boolean"),
  severity: { enum: ["healthy", "warning", "error"], description: "the worst issue's; healthy with none" },
  issues: arr(issueSchema),
  binding: {
    oneOf: [
      obj({
        uuid: s("string"),
        chassis: n("string"),
        up: n("boolean"),
        requested_chassis: arr(s("string")),
      }),
      { type: "null" },
    ],
  },
  interfaces: {
    oneOf: [arr(interfaceSchema), { type: "null" }],
    description: "live interfaces carrying the port's iface-id; null without monitored switches",
  },
});

export const portDiagnosticsSchema = obj({
  summary: obj(
    {
      total: s("integer"),
      healthy: s("integer"),
      warning: s("integer"),
      error: s("integer"),
      by_issue: { type: "object", additionalProperties: { type: "integer" } },
    },
    "counts over every port, whatever severity and limit",
  ),
  returned: s("integer"),
  truncated: s("boolean", "more ports matched than limit"),
  ports: arr(portDiagnosisSchema),
  stray_interfaces: {
    oneOf: [arr(obj({ ...interfaceMembers, iface_id: s("string") })), { type: "null" }],
    description: "live interfaces whose iface-id names no logical port; null without monitored switches",
  },
});

const findingSchema = obj({
  kind: { enum: ["shadowed", "conflicting"] },
  acl: aclRefSchema,
  related: {
    ...arr(aclRefSchema),
    description: "the higher-priority ACLs that take its packets (shadowed), or the other ACL (conflicting)",
  },
  detail: s("string"),
});

export const aclAuditSchema = obj({
  scopes: s("integer", "switches and port groups with ACLs compared"),
  acls: s("integer"),
  findings: arr(findingSchema),
  truncated: s("boolean", "the finding cap was reached"),
  cap: s("integer", "the finding cap"),
  unchecked: arr(obj({ acl: aclRefSchema, reason: s("string") })),
});

const staleKindEnum = ["mac_binding", "fdb", "port_binding", "datapath_binding", "chassis_private"];

export const staleEntriesSchema = obj({
  summary: {
    type: "object",
    properties: Object.fromEntries(["total", ...staleKindEnum].map((k) => [k, s("integer")])),
    description: "counts over every entry, whatever kind and limit",
  },
  returned: s("integer"),
  truncated: s("boolean"),
  entries: arr(
    obj({
      kind: { enum: staleKindEnum },
      uuid: s("string", "the southbound row"),
      reason: {
        enum: [
          "datapath_gone",
          "port_gone",
          "ip_unowned",
          "mac_mismatch",
          "mac_owned_elsewhere",
          "no_nb_port",
          "no_nb_owner",
          "no_chassis",
        ],
      },
      detail: s("string"),
      row: {
        type: "object",
        additionalProperties: { type: ["string", "integer", "null"] },
        description: "the row's identifying columns",
      },
    }),
  ),
});

const blockerSchema = obj({
  where: { enum: ["forward", "return", "source", "destination"] },
  reason: {
    enum: [
      "acl_drop",
      "no_route",
      "port_security",
      "dropped",
      "not_delivered",
      "no_binding",
      "unbound_port",
      "chassis_down",
      "port_down",
      "port_disabled",
    ],
  },
  detail: s("string"),
  acl: { oneOf: [aclRefSchema, { type: "null" }], description: "the ACL that drops the packet" },
  stage: { oneOf: [traceStageSchema, { type: "null" }] },
});

const pathSchema = obj({
  reached: s("boolean"),
  verdict: { enum: ["delivered", "dropped", "partially_delivered"] },
  microflow: s("string"),
  delivered: arr(s("string")),
  stages: s("integer"),
  trace_id: s("string", "the full trace: GET /api/v1/debug/traces/{trace_id}"),
});

const endpointSchema = obj({
  port: s("string"),
  uuid: s("string"),
  switch: n("string"),
  ip: s("string"),
  chassis: n("string"),
  severity: { enum: ["healthy", "warning", "error"] },
  issues: arr(issueSchema),
});

export const connectivitySchema = obj({
  reachable: s("boolean", "both directions reach the other port and both ends are bound to a live chassis"),
  source: endpointSchema,
  destination: endpointSchema,
  packet: obj({
    protocol: s("string"),
    family: { enum: [4, 6] },
    src_port: n("integer"),
    dst_port: n("integer"),
  }),
  blockers: arr(blockerSchema),
  forward: pathSchema,
  return: pathSchema,
});

const routeSchema = obj({
  kind: { enum: ["connected", "static"] },
  prefix: s("string"),
  nexthop: n("string"),
  output_port: s("string"),
  uuid: { ...n("string"), description: "the static route" },
});

export const nexthopMacSchema = obj({
  router: obj({ uuid: s("string"), name: s("string") }),
  ip: s("string"),
  route: { oneOf: [routeSchema, { type: "null" }] },
  alternatives: { ...arr(routeSchema), description: "ECMP routes of the same prefix" },
  nexthop: n("string"),
  output_port: n("string"),
  resolved: s("boolean"),
  mac: n("string"),
  source: n("string"),
  candidates: arr(
    obj({
      source: {
        enum: [
          "logical_switch_port",
          "logical_router_port",
          "static_mac_binding",
          "mac_binding",
          "peer_router_port",
        ],
      },
      mac: s("string"),
      from: s("string"),
      timestamp: n("integer"),
    }),
  ),
  conflict: s("boolean", "the sources disagree on the MAC"),
  detail: s("string"),
  not_applied: {
    ...arr(s("string")),
    description:
      "what the router has that the answer does not apply: policies, source-IP routes, other route tables",
  },
});

/** The schemas of a logical flow's own fields (`FlowFields`), in the flow list and the flow diff. */
export const flowFieldProps = {
  pipeline: s("string"),
  table: s("integer"),
  stage: n("string"),
  priority: s("integer"),
  match: s("string"),
  actions: s("string"),
};

const flowStateSchema = obj({ priority: s("integer"), match: s("string"), actions: s("string") });

export const flowDiffSchema = obj({
  capacity: s("integer", "changes kept at most"),
  kept: s("integer"),
  dropped: s("integer", "changes pushed out of the ring since the server started"),
  last_seq: s("integer"),
  oldest_seq: n("integer"),
  matching: obj({ added: s("integer"), removed: s("integer"), modified: s("integer") }),
  truncated: s("boolean", "more kept changes matched than limit"),
  changes: arr(
    obj({
      seq: s("integer"),
      txn: s("integer", "one monitor notification"),
      at: s("string", "RFC 3339, when netview received it"),
      cluster: s("string"),
      change: { enum: ["added", "removed", "modified"] },
      resync: s("boolean", "found by a full resync after a reconnection"),
      coalesced: s("boolean", "ovsdb-server may have merged earlier changes of this flow into this one"),
      uuid: s("string"),
      datapaths: arr(obj({ uuid: s("string"), name: n("string") })),
      ...flowFieldProps,
      before: { oneOf: [flowStateSchema, { type: "null" }] },
    }),
  ),
});

const rowRefSchema = obj({
  db: { enum: ["nb", "sb"] },
  table: s("string"),
  uuid: s("string"),
  name: n("string"),
  column: s("string", "the reference column"),
});

export const impactSchema = obj({
  entity: obj({ db: { enum: ["nb", "sb"] }, table: s("string"), uuid: s("string"), name: n("string") }),
  referenced_by: arr(rowRefSchema),
  references: arr(rowRefSchema),
  affected: obj({
    ports: arr(s("string")),
    switches: arr(s("string")),
    routers: arr(s("string")),
    chassis: arr(s("string")),
    logical_flows: s("integer"),
  }),
});

export { arr, n, obj, s };
