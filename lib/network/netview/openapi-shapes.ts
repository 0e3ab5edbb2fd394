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

/** `detail.responses` for a route answering `schema`, with the errors it can give. */
export function responses(schema: JsonSchema, errors: Record<number, string> = {}): Responses {
  // OpenAPI 3.1 schemas (type arrays) are wider than the 3.0 types Elysia declares: cast once here.
  const out = {
    200: { description: "OK", headers: staleHeader, content: { "application/json": { schema } } },
  } as unknown as Responses;
  for (const [status, description] of Object.entries(errors))
    out[status] = errorResponse(description) as Responses[string];
  return out;
}

export const listOf = (schema: JsonSchema): JsonSchema => ({ type: "array", items: schema });
