import { Elysia } from "elysia";
import type { Sql } from "postgres";
import type { JsonObject } from "../../events/event.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { describeDatabaseFailure } from "../database-failure.ts";

/** `GET /api/v1/resource-types` (apiToken, lowest role): every registered pair with its size schema. */
export function resourceTypesRoute(deps: { auth: Authenticator; sql: Sql }) {
  return new Elysia({ name: "reporting-resource-types" }).get(
    "/api/v1/resource-types",
    async ({ request }) => {
      await deps.auth.api(request, "reader");
      try {
        const items = await deps.sql<{ platform: string; resource_type: string; size_schema: JsonObject }[]>`
        select platform, resource_type, size_schema from resource_types order by platform, resource_type`;
        return { items: [...items], next_cursor: null };
      } catch (error) {
        throw describeDatabaseFailure(error);
      }
    },
  );
}
