/** OpenAPI descriptions of the debug answers (see openapi-shapes.ts for why they are not Elysia schemas). */
type JsonSchema = Record<string, unknown>;

const s = (type: string, description?: string): JsonSchema =>
  description === undefined ? { type } : { type, description };
const n = (type: string): JsonSchema => ({ type: [type, "null"] });
const obj = (properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: "object",
  properties,
  ...(description === undefined ? {} : { description }),
});
const arr = (items: JsonSchema): JsonSchema => ({ type: "array", items });

export const traceStageSchema = obj({
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

export const aclRefSchema = obj({
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

export const traceOutcomeSchema = obj({
  verdict: { enum: ["delivered", "dropped", "partially_delivered"] },
  delivered: arr(obj({ port: s("string"), datapath: s("string"), type: s("string") })),
  stopped: arr(
    obj({
      reason: { enum: ["no_match", "drop_action", "no_forwarding_action", "loop", "error"] },
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

export { arr, n, obj, s };
