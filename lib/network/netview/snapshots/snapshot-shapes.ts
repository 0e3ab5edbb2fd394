/**
 * OpenAPI descriptions of the snapshot routes' bodies, parameters and answers (docs/netview.md
 * "Snapshots"), member by member; the contract test checks every answer against them.
 */
import { arr, n, obj, s } from "../debug/debug-shapes.ts";
import { rowSchema } from "../openapi-shapes.ts";
import type { ParamSpec } from "../query-params.ts";
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
