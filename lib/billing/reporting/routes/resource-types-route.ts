import { Type } from "@sinclair/typebox";
import type { Sql } from "postgres";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { JsonObjectSchema, Page } from "../contract/common-schemas.ts";
import { operation } from "../contract/operation.ts";
import { operationRoutes, route } from "../contract/operation-routes.ts";

const ResourceTypeSchema = Type.Object(
  {
    platform: Type.String(),
    resource_type: Type.String(),
    size_schema: JsonObjectSchema,
  },
  { $id: "ResourceType", additionalProperties: false },
);

export const listResourceTypes = operation({
  method: "GET",
  path: "/api/v1/resource-types",
  operationId: "listResourceTypes",
  tag: "resources",
  summary: "Every registered (platform, resource_type) pair with its size schema",
  description: "The page envelope without paging: next_cursor is always null.",
  security: "api",
  role: "reader",
  success: { 200: { description: "ResourceTypeList", schema: Page(ResourceTypeSchema, "ResourceTypeList") } },
  errors: [],
});

/** `GET /api/v1/resource-types` (apiToken, lowest role). */
export function resourceTypesRoute(deps: { auth: Authenticator; sql: Sql }) {
  return operationRoutes("reporting-resource-types", deps.auth, [
    route(listResourceTypes, async () => {
      const items = await deps.sql<{ platform: string; resource_type: string; size_schema: JsonObject }[]>`
        select platform, resource_type, size_schema from resource_types order by platform, resource_type`;
      return { items: [...items], next_cursor: null };
    }),
  ]);
}
