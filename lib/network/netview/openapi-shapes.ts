/**
 * Response descriptions for the OpenAPI document, given as raw `detail.responses` rather than Elysia
 * response schemas: a schema would make Elysia validate every answer, which for 40,000 logical flows
 * costs more than building them. Rows are schema-driven (their columns come from the server), so they
 * are described generically; the computed objects are described member by member.
 */

import type { DocumentDecoration } from "elysia";
import { syncStatuses } from "./chassis-inventory.ts";

type JsonSchema = Record<string, unknown>;
type Responses = NonNullable<DocumentDecoration["responses"]>;

const errorBody: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: { error: { type: "string" } },
};

export const rowSchema: JsonSchema = {
  type: "object",
  description:
    "One OVSDB row: `_uuid` and every column of the server's schema (uuids as strings, optional columns as value or null, sets as sorted arrays, maps as objects; docs/ovsdb-json.md)",
  required: ["_uuid"],
  properties: { _uuid: { type: "string", format: "uuid" } },
  additionalProperties: true,
};

const nullable = (type: string): JsonSchema => ({ type: [type, "null"] });
const stringMap: JsonSchema = { type: "object", additionalProperties: { type: "string" } };

export const syncStatusSchema: JsonSchema = { enum: [...syncStatuses] };

export const inventoryEntrySchema: JsonSchema = {
  type: "object",
  properties: {
    name: { type: "string", description: "system-id; the join key to the chassis's live switch" },
    uuid: { type: "string" },
    hostname: { type: "string" },
    tunnel_endpoints: {
      type: "array",
      items: {
        type: "object",
        properties: { type: { type: "string" }, ip: { type: "string" }, options: stringMap },
      },
    },
    bridge_mappings: stringMap,
    nb_cfg: nullable("integer"),
    global_nb_cfg: { type: "integer" },
    in_sync: { type: "boolean" },
    alive: { type: "boolean" },
    age_ms: nullable("integer"),
    lag_ms: nullable("integer"),
    stale: { type: "boolean" },
    sync_status: syncStatusSchema,
    nb_cfg_reports_enabled: { type: "boolean" },
    ports: {
      type: "object",
      properties: {
        bound: { type: "integer" },
        up: { type: "integer" },
        down: { type: "integer" },
        by_type: { type: "object", additionalProperties: { type: "integer" } },
      },
    },
  },
};

export const inventoryDetailSchema: JsonSchema = {
  allOf: [
    inventoryEntrySchema,
    {
      type: "object",
      properties: {
        chassis_private: nullable("string"),
        other_config: stringMap,
        external_ids: stringMap,
        private_external_ids: stringMap,
        transport_zones: { type: "array", items: { type: "string" } },
        bound_ports: {
          type: "array",
          items: {
            type: "object",
            properties: {
              uuid: { type: "string" },
              logical_port: { type: "string" },
              type: { type: "string" },
              up: nullable("boolean"),
              datapath: { type: "string" },
              datapath_name: nullable("string"),
              tunnel_key: { type: "integer" },
            },
          },
        },
      },
    },
  ],
};

const healthCounts = {
  bridges: { type: "integer" },
  ports: { type: "integer" },
  interfaces: { type: "integer" },
  down_interfaces: { type: "integer" },
  error_interfaces: { type: "integer", description: "rx or tx errors increased since the previous read" },
  drop_interfaces: { type: "integer", description: "rx or tx dropped increased since the previous read" },
};

export const fleetStatusSchema: JsonSchema = {
  type: "array",
  items: {
    type: "object",
    properties: {
      system_id: { type: "string" },
      address: { type: "string" },
      connected: { type: "boolean" },
    },
  },
};

export const fleetHealthSchema: JsonSchema = {
  type: "object",
  properties: {
    chassis: { type: "integer" },
    connected: { type: "integer" },
    unreachable: { type: "integer" },
    ...healthCounts,
    members: {
      type: "array",
      items: {
        type: "object",
        properties: { system_id: { type: "string" }, connected: { type: "boolean" }, ...healthCounts },
      },
    },
  },
};

export const correlationSchema: JsonSchema = {
  type: "object",
  properties: {
    interface: { type: "string" },
    iface_id: nullable("string"),
    bound: { type: "boolean" },
    logical_port: nullable("string"),
    port_binding: nullable("string"),
    up: nullable("boolean"),
    datapath: nullable("string"),
    datapath_name: nullable("string"),
    chassis: nullable("string"),
    chassis_name: nullable("string"),
    bound_here: { type: "boolean" },
    drift: {
      type: "boolean",
      description: "the SB reports the port up while the interface is down or erroring",
    },
  },
};

const staleHeader = {
  "X-Netview-Stale": {
    description: "`true` when the cluster's caches are not authoritative (reconnecting or suspended)",
    schema: { type: "string", enum: ["true"] },
  },
};

const errorResponse = (description: string) => ({
  description,
  headers: staleHeader,
  content: { "application/json": { schema: errorBody } },
});

/**
 * `detail.responses` for a route answering `schema`, with the errors it can give; `status` (200 by
 * default), and `text` describing a `text/plain` answer the route also gives.
 */
export function responses(
  schema: JsonSchema,
  errors: Record<number, string> = {},
  options: { status?: 200 | 201; text?: string } = {},
): Responses {
  const status = options.status ?? 200;
  const content: Record<string, unknown> = { "application/json": { schema } };
  if (options.text !== undefined)
    content["text/plain"] = { schema: { type: "string", description: options.text } };
  // OpenAPI 3.1 schemas (type arrays) are wider than the 3.0 types Elysia declares: cast once here.
  const out = {
    [status]: { description: status === 201 ? "Created" : "OK", headers: staleHeader, content },
  } as unknown as Responses;
  for (const [code, text] of Object.entries(errors)) out[code] = errorResponse(text) as Responses[string];
  return out;
}

/** `detail.responses` of the errors alone (the WebSocket route: its success is the upgrade, 101). */
export function errorResponses(errors: Record<number, string>): Responses {
  const out = {} as Responses;
  for (const [code, text] of Object.entries(errors)) out[code] = errorResponse(text) as Responses[string];
  return out;
}

/** `detail.responses` for a route answering 204 with no body. */
export function noContent(errors: Record<number, string> = {}): Responses {
  return { 204: { description: "Done; no body" }, ...errorResponses(errors) } as unknown as Responses;
}

/** The errors every route that needs the write token can answer (decision 362). */
export const tokenErrors = {
  401: "no Authorization: Bearer <write token>, or another token",
  403: "changes are disabled: the server runs without --write-token-file (or, for /write, --write-enabled)",
} as const;

/** `detail.requestBody` of a JSON body described by `schema`. */
export function jsonBody(schema: JsonSchema, required = true): DocumentDecoration["requestBody"] {
  return {
    required,
    content: { "application/json": { schema } },
  } as unknown as DocumentDecoration["requestBody"];
}

export const listOf = (schema: JsonSchema): JsonSchema => ({ type: "array", items: schema });

const schemaName: JsonSchema = {
  type: ["object", "null"],
  properties: { name: { type: "string" }, version: { type: "string" } },
  required: ["name", "version"],
};

const databaseStatus: JsonSchema = {
  type: "object",
  required: ["state", "authoritative", "schema", "last_error"],
  additionalProperties: false,
  properties: {
    state: { enum: ["idle", "connecting", "syncing", "synced", "waiting", "suspended", "stopped"] },
    authoritative: { type: "boolean" },
    schema: schemaName,
    last_error: nullable("string"),
  },
};

const ovsStatus: JsonSchema = {
  type: "object",
  required: ["enabled", "chassis"],
  properties: { enabled: { type: "boolean" }, chassis: { type: "integer" } },
};

export const healthSchema: JsonSchema = {
  type: "object",
  required: ["status"],
  properties: { status: { enum: ["ok"] } },
};

export const readySchema: JsonSchema = {
  type: "object",
  required: ["status"],
  properties: { status: { enum: ["ready"] } },
};

export const capabilitiesSchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: [
    "mode",
    "write_enabled",
    "capabilities",
    "ovs",
    "clusters",
    "default_cluster",
    "chassis_stale_threshold_ms",
    "ws_allowed_origins",
    "missing_tables",
  ],
  properties: {
    mode: { enum: ["read-only", "read-write"] },
    write_enabled: { type: "boolean" },
    capabilities: { type: "array", items: { type: "string" } },
    ovs: ovsStatus,
    clusters: { type: "array", items: { type: "string" } },
    default_cluster: { type: "string" },
    chassis_stale_threshold_ms: { type: "integer" },
    ws_allowed_origins: { type: "array", items: { type: "string" } },
    missing_tables: {
      type: "object",
      description: "route names of the tables the server's schema lacks (null before the first sync)",
      properties: {
        nb: { type: ["array", "null"], items: { type: "string" } },
        sb: { type: ["array", "null"], items: { type: "string" } },
      },
    },
  },
};

export const clusterEntrySchema: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "default", "stale", "ready", "nb", "sb", "ovs"],
  properties: {
    name: { type: "string" },
    default: { type: "boolean" },
    stale: { type: "boolean" },
    ready: { type: "boolean" },
    nb: databaseStatus,
    sb: databaseStatus,
    ovs: ovsStatus,
  },
};
