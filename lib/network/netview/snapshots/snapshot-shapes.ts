/**
 * OpenAPI descriptions of the snapshot routes' bodies, parameters and answers (docs/netview.md
 * "Snapshots"), member by member, and each route's whole description (`snapshotDocs`); the contract
 * test checks every answer against them.
 */
import { arr, n, obj, s } from "../debug/debug-shapes.ts";
import { needsWriteToken } from "../openapi-document.ts";
import { jsonBody, listOf, noContent, responses, rowSchema, tokenErrors } from "../openapi-shapes.ts";
import { openapiParameters, type ParamSpec } from "../query-params.ts";
import { tableDiffSchema } from "../write/write-shapes.ts";

type JsonSchema = Record<string, unknown>;

const map = (values: JsonSchema): JsonSchema => ({ type: "object", additionalProperties: values });
const schemaName = obj({ name: s("string"), version: s("string") });
const databases = (each: JsonSchema) => obj({ nb: each, sb: each });

const describedMembers = {
  id: s("string"),
  label: s("string"),
  cluster: s("string"),
  created_at: s("string", "RFC 3339"),
  source: { enum: ["live", "import"] },
  stale: s("boolean", "taken while netview was reconnecting: the last rows it had"),
  bytes: s("integer", "stored (compressed) size"),
  loaded_on: { ...n("string"), description: "the cluster it is loaded on" },
};

export const snapshotSchema = obj({
  ...describedMembers,
  databases: databases(obj({ schema: schemaName, rows: s("integer"), tables: map(s("integer")) })),
});

export const snapshotTakenSchema = obj({
  ...describedMembers,
  databases: databases(obj({ schema: schemaName, rows: s("integer"), tables: map(s("integer")) })),
  evicted: { ...arr(s("string")), description: "ids removed by --snapshots-max" },
});

export const snapshotListSchema = arr(
  obj({ ...describedMembers, databases: databases(obj({ schema: schemaName, rows: s("integer") })) }),
);

const side: JsonSchema = { oneOf: [obj({ snapshot: s("string") }), obj({ live: s("string") })] };

export const snapshotDiffSchema = obj({
  from: side,
  to: side,
  summary: obj({ inserted: s("integer"), deleted: s("integer"), updated: s("integer") }),
  databases: databases(map(tableDiffSchema)),
});

export const snapshotDocumentSchema: JsonSchema = {
  type: "object",
  required: ["format", "version", "databases"],
  properties: {
    format: { const: "netview-snapshot" },
    version: { const: 1 },
    id: s("string"),
    label: { type: "string", maxLength: 200 },
    cluster: { type: "string", maxLength: 200 },
    created_at: s("string"),
    stale: s("boolean"),
    databases: databases(obj({ schema: schemaName, tables: map(arr(rowSchema)) })),
  },
};

export const takeSnapshotSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    cluster: { type: "string", maxLength: 200, description: "default: the default cluster" },
    label: { type: "string", maxLength: 200 },
  },
};

export const loadedSchema = obj({
  snapshot: s("string"),
  cluster: s("string"),
  id: s("string"),
  loaded_at: s("string"),
});

export const unloadedSchema = obj({ snapshot: s("string"), cluster: s("string"), live: { const: true } });

const databaseParam: ParamSpec = {
  name: "database",
  type: "string",
  enum: ["nb", "sb"],
  description: "Only this database",
};

export const diffParams: ParamSpec[] = [
  { name: "from", type: "string", required: true, description: "A snapshot id, or live" },
  { name: "to", type: "string", default: "live", description: "A snapshot id, or live" },
  {
    name: "cluster",
    type: "string",
    description: "The cluster of the live side (default: the snapshot's own)",
  },
  databaseParam,
  { name: "table", type: "string", description: "Only these tables (OVSDB or route names, comma-separated)" },
];

export const rowsParams: ParamSpec[] = [
  { ...databaseParam, required: true, description: "The database" },
  { name: "table", type: "string", required: true, description: "The table (OVSDB or route name)" },
];

export const loadParams: ParamSpec[] = [
  {
    name: "cluster",
    type: "string",
    description: "The cluster to load it on (default: the one it was taken of)",
  },
];

const tags = ["snapshots"];

/** What the OpenAPI document says of each snapshot route. */
export const snapshotDocs = {
  take: {
    tags,
    summary: "Take a snapshot of a cluster's NB and SB caches",
    security: needsWriteToken,
    requestBody: jsonBody(takeSnapshotSchema, false),
    responses: responses(
      snapshotTakenSchema,
      {
        400: "invalid body",
        404: "unknown cluster",
        409: "a snapshot is loaded on the cluster",
        503: "the cluster has not been synced yet",
        ...tokenErrors,
      },
      { status: 201 },
    ),
  },
  list: { tags, summary: "Snapshots, newest first", responses: responses(snapshotListSchema) },
  diff: {
    tags,
    summary: "What changed between two snapshots, or a snapshot and the live caches",
    parameters: openapiParameters(diffParams),
    responses: responses(snapshotDiffSchema, {
      400: "invalid parameters",
      404: "no such snapshot (or cluster)",
      409: "the live side's cluster answers from a loaded snapshot",
    }),
  },
  import: {
    tags,
    summary: "Import an exported snapshot document (a new id is given)",
    security: needsWriteToken,
    requestBody: jsonBody(snapshotDocumentSchema),
    responses: responses(
      snapshotTakenSchema,
      { 400: "invalid snapshot: up to ten problems named", ...tokenErrors },
      { status: 201 },
    ),
  },
  get: {
    tags,
    summary: "One snapshot: schemas, row counts per table, where it is loaded",
    responses: responses(snapshotSchema, { 404: "not found" }),
  },
  rows: {
    tags,
    summary: "Rows of one table of a snapshot",
    parameters: openapiParameters(rowsParams),
    responses: responses(listOf(rowSchema), {
      400: "invalid parameters",
      404: "no such snapshot, or table in it",
    }),
  },
  export: {
    tags,
    summary: "The whole snapshot as a document that import reads (an attachment)",
    responses: responses(snapshotDocumentSchema, { 404: "not found" }),
  },
  delete: {
    tags,
    summary: "Delete a snapshot (not while it is loaded)",
    security: needsWriteToken,
    responses: noContent({ 404: "not found", 409: "the snapshot is loaded", ...tokenErrors }),
  },
  load: {
    tags,
    summary:
      "Answer from the snapshot: the cluster's live monitors are suspended, answers carry X-Netview-Stale and /readyz is 503 until unload",
    security: needsWriteToken,
    parameters: openapiParameters(loadParams),
    responses: responses(loadedSchema, {
      400: "the snapshot's cluster is not served here: name one",
      404: "no such snapshot (or cluster)",
      409: "a snapshot is loaded already, or the schemas differ",
      ...tokenErrors,
    }),
  },
  unload: {
    tags,
    summary: "Resume live monitoring of the cluster the snapshot is loaded on",
    security: needsWriteToken,
    responses: responses(unloadedSchema, {
      404: "not found",
      409: "the snapshot is not loaded",
      ...tokenErrors,
    }),
  },
};
