/**
 * OpenAPI descriptions of the write routes' bodies and answers (plans, the audit, the write schema;
 * docs/netview.md "Writes"), member by member, so the document says what each holds and the contract
 * test checks every answer against it, and each route's whole description (`writeDocs`). Rows are
 * schema-driven and described as in openapi-shapes.ts.
 */
import type { DocumentDecoration } from "elysia";
import { arr, n, obj, s } from "../debug/debug-shapes.ts";
import { needsWriteToken } from "../openapi-document.ts";
import { jsonBody, listOf, responses, rowSchema, tokenErrors } from "../openapi-shapes.ts";
import { openapiParameters, type ParamSpec } from "../query-params.ts";

type JsonSchema = Record<string, unknown>;

const map = (values: JsonSchema): JsonSchema => ({ type: "object", additionalProperties: values });
const columns: JsonSchema = {
  type: "object",
  description: "column name → value, in the row convention (docs/ovsdb-json.md)",
};
const counts = obj({ inserted: s("integer"), updated: s("integer"), deleted: s("integer") });

const tableDiffOf = (inserted: JsonSchema) =>
  obj({
    inserted: arr(inserted),
    deleted: arr(rowSchema),
    updated: arr(obj({ uuid: s("string"), old: columns, new: rowSchema })),
  });

export const tableDiffSchema = tableDiffOf(rowSchema);

/** A plan's predicted effect: a row it inserts has no uuid yet, only its `@ref` (or `@insert-N`). */
const plannedDiffSchema = tableDiffOf({
  ...rowSchema,
  properties: { _uuid: s("string", "the uuid it is put back under, or @ref for a new row") },
});

const plannedChangeSchema: JsonSchema = {
  oneOf: [
    {
      type: "object",
      required: ["kind", "table", "row"],
      additionalProperties: false,
      properties: {
        kind: { const: "insert" },
        table: s("string"),
        uuid: s("string", "put back under this uuid (rollback, restore)"),
        ref: s("string", "the name later changes use as @ref"),
        row: columns,
      },
    },
    obj({
      kind: { const: "update" },
      table: s("string"),
      uuid: s("string", "the row, or @ref for a row this plan inserts"),
      before: { ...columns, description: "the values read: apply waits for exactly these" },
      after: columns,
    }),
    obj({ kind: { const: "delete" }, table: s("string"), uuid: s("string"), before: rowSchema }),
  ],
};

const monitoredChange = obj({
  table: s("string"),
  uuid: s("string"),
  old: { oneOf: [rowSchema, { type: "null" }] },
  new: { oneOf: [rowSchema, { type: "null" }] },
});

export const planSchema = obj({
  id: s("string"),
  kind: { enum: ["preview", "dry-run", "failover", "evacuate", "rollback", "restore"] },
  cluster: s("string"),
  state: { enum: ["prepared", "applied", "failed", "stale", "cancelled", "expired"] },
  description: s("string"),
  created_at: s("string", "RFC 3339"),
  created_by: s("string"),
  expires_at: s("string"),
  server_checked: s("boolean", "dry-run: the server ran the operations and rolled them back"),
  source: {
    oneOf: [{ type: "null" }, obj({ plan: s("string") }), obj({ snapshot: s("string") })],
    description: "the plan a rollback undoes, or the snapshot a restore returns to",
  },
  changes: arr(plannedChangeSchema),
  effect: { ...map(plannedDiffSchema), description: "per table, as a snapshot diff" },
  finished_at: n("string"),
  result: {
    oneOf: [
      { type: "null" },
      obj({
        error: n("string"),
        inserted: { ...map(s("string")), description: "the new uuid by ref (or position)" },
        changes: arr(monitoredChange),
      }),
    ],
  },
});

const auditMembers = {
  id: s("integer"),
  at: s("string"),
  action: { enum: ["plan", "apply", "cancel"] },
  kind: s("string"),
  plan_id: s("string"),
  cluster: s("string"),
  actor: s("string", "X-Netview-Actor, or anonymous"),
  token: s("string", "the first 12 hex digits of the token's SHA-256"),
  remote_addr: n("string"),
  request_id: n("string"),
  result: {
    enum: ["prepared", "pending", "applied", "stale", "failed", "error", "cancelled"],
  },
  error: n("string"),
  summary: counts,
  finished_at: n("string"),
};

export const auditSummarySchema = obj(auditMembers);
export const auditEntrySchema = obj({ ...auditMembers, changes: arr(plannedChangeSchema) });

const rules: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    enum: arr({ type: ["string", "number", "boolean"] }),
    minimum: s("number"),
    maximum: s("number"),
    min_length: s("integer"),
    max_length: s("integer"),
    ref_type: { enum: ["strong", "weak"] },
  },
};

const columnSchema: JsonSchema = {
  type: "object",
  required: ["kind", "key", "min", "max", "mutable"],
  additionalProperties: false,
  properties: {
    kind: { enum: ["map", "set", "optional", "scalar"] },
    key: s("string", "atomic type of the key (or of the value, for a column that is not a map)"),
    ref_table: s("string"),
    value: s("string"),
    value_ref_table: s("string"),
    min: s("integer"),
    max: { oneOf: [s("integer"), { const: "unlimited" }] },
    mutable: s("boolean"),
    key_rules: rules,
    value_rules: rules,
  },
};

export const writeSchemaSchema = obj({
  cluster: s("string"),
  database: obj({ name: s("string"), version: s("string") }),
  plan_ttl_ms: s("integer"),
  operations: { type: "object", description: "the shape of each operation" },
  actions: { type: "object", description: "the body of each action" },
  tables: map({
    type: "object",
    required: ["root", "columns", "indexes"],
    additionalProperties: false,
    properties: {
      root: s("boolean"),
      columns: map(columnSchema),
      indexes: arr(arr(s("string"))),
      max_rows: s("integer"),
    },
  }),
});

const text = (description: string): JsonSchema => ({ type: "string", maxLength: 500, description });
const cluster = s("string", "the cluster (default: the default cluster)");
const where: JsonSchema = s("string", "a uuid, or @ref for a row this plan inserts earlier");

const operationSchema: JsonSchema = {
  oneOf: [
    {
      type: "object",
      additionalProperties: false,
      required: ["op", "table", "row"],
      properties: {
        op: { const: "insert" },
        table: s("string", "an NB table (OVSDB name)"),
        row: columns,
        ref: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$" },
      },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["op", "table", "set"],
      properties: {
        op: { const: "update" },
        table: s("string"),
        uuid: where,
        name: s("string", "the row with this name, when exactly one has it"),
        set: columns,
      },
    },
    {
      type: "object",
      additionalProperties: false,
      required: ["op", "table"],
      properties: { op: { const: "delete" }, table: s("string"), uuid: s("string"), name: s("string") },
    },
  ],
};

export const writeRequestSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["operations"],
  properties: {
    cluster,
    description: text("what the plan is for"),
    operations: { type: "array", minItems: 1, maxItems: 1000, items: operationSchema },
  },
};

export const failoverSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  description: "router_port or ha_chassis_group, not both",
  properties: {
    router_port: text("a logical router port with gateway chassis, by name or uuid"),
    ha_chassis_group: text("an HA chassis group, by name or uuid"),
    to_chassis: text("the chassis to make active (default: the next one present)"),
    cluster,
    description: text("what the plan is for"),
  },
};

export const evacuateSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["chassis"],
  properties: { chassis: text("the chassis every gateway moves off"), cluster, description: text("") },
};

export const rollbackSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["plan"],
  properties: { plan: text("the id of an applied plan"), description: text("") },
};

export const restoreSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["snapshot"],
  properties: {
    snapshot: text("a snapshot id"),
    tables: {
      ...arr(s("string")),
      description: "NB tables (default: every table but NB_Global, Connection, SSL)",
    },
    cluster,
    description: text(""),
  },
};

const tags = ["write"];

const auditParams: ParamSpec[] = [
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: "Most entries returned, newest first",
  },
  { name: "before", type: "integer", minimum: 1, description: "Only entries with a smaller id (page on)" },
  { name: "plan", type: "string", description: "Only the entries of this plan" },
];

const clusterParam: ParamSpec[] = [
  { name: "cluster", type: "string", description: "The cluster (default: the default cluster)" },
];

/** What every write route's document says: the token it needs, and the refusals of the guard. */
const guarded = (
  summary: string,
  answer: { schema: Record<string, unknown>; status?: 200 | 201; errors?: Record<number, string> },
  more: Partial<DocumentDecoration> = {},
) => ({
  tags,
  summary,
  security: needsWriteToken,
  responses: responses(
    answer.schema,
    { ...answer.errors, ...tokenErrors },
    answer.status === undefined ? {} : { status: answer.status },
  ),
  ...more,
});

const planErrors = {
  400: "invalid body: every problem named",
  404: "unknown cluster",
  409: "a unique index or row limit the plan would break, a loaded snapshot, or a row changed since it was read",
  503: "the northbound database has not been synced yet",
};
const unknownPlan = { 404: "not found" };

/** What the OpenAPI document says of each write route: the token it needs and the refusals it gives. */
export const writeDocs = {
  schema: guarded(
    "What can be changed: the server's northbound tables and columns with their rules, operations and actions",
    { schema: writeSchemaSchema, errors: { 404: "unknown cluster", 503: planErrors[503] } },
    { parameters: openapiParameters(clusterParam) },
  ),
  preview: guarded(
    "Prepare a plan from row operations, predicted from the cache; nothing is applied",
    { schema: planSchema, status: 201, errors: planErrors },
    { requestBody: jsonBody(writeRequestSchema) },
  ),
  dryRun: guarded(
    "As preview, and the server also runs the operations and rolls them back",
    {
      schema: planSchema,
      status: 201,
      errors: { ...planErrors, 422: "the server refuses the operations (its words)" },
    },
    { requestBody: jsonBody(writeRequestSchema) },
  ),
  plan: guarded("One plan: its changes, predicted effect, state and result", {
    schema: planSchema,
    errors: unknownPlan,
  }),
  apply: guarded(
    "Apply a prepared plan in one transaction that first checks every row it read is unchanged (409 stale otherwise)",
    {
      schema: planSchema,
      errors: {
        ...unknownPlan,
        409: "the plan is stale (a row it read has changed), not prepared, or a snapshot is loaded",
        422: "the server refuses the transaction: the plan failed",
        503: "the northbound database cannot be reached: the plan stays prepared",
      },
    },
  ),
  cancel: guarded("Cancel a prepared plan", {
    schema: planSchema,
    errors: { ...unknownPlan, 409: "the plan is not prepared" },
  }),
  failover: guarded(
    "Plan moving a gateway to the next (or the named) chassis",
    {
      schema: planSchema,
      status: 201,
      errors: { ...planErrors, 404: "unknown cluster, or no such router port or HA chassis group" },
    },
    { requestBody: jsonBody(failoverSchema) },
  ),
  evacuate: guarded(
    "Plan moving every gateway active on a chassis to the next one",
    {
      schema: planSchema,
      status: 201,
      errors: {
        ...planErrors,
        409: "the chassis is active for no gateway, or no other chassis is present",
      },
    },
    { requestBody: jsonBody(evacuateSchema) },
  ),
  rollback: guarded(
    "Plan undoing an applied plan, row by row as it left them",
    {
      schema: planSchema,
      status: 201,
      errors: {
        ...planErrors,
        ...unknownPlan,
        409: "the plan is not applied, or a row has changed since",
      },
    },
    { requestBody: jsonBody(rollbackSchema) },
  ),
  restore: guarded(
    "Plan returning northbound tables to a snapshot",
    {
      schema: planSchema,
      status: 201,
      errors: { ...planErrors, 404: "no such snapshot (or cluster)" },
    },
    { requestBody: jsonBody(restoreSchema) },
  ),
  audit: guarded(
    "The audit of writes, newest first",
    { schema: listOf(auditSummarySchema), errors: { 400: "invalid limit or before" } },
    { parameters: openapiParameters(auditParams) },
  ),
  auditEntry: guarded("One audit entry with the changes it covered", {
    schema: auditEntrySchema,
    errors: { 404: "not found" },
  }),
};
