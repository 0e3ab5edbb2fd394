import { Type } from "@sinclair/typebox";
import type { Sql } from "postgres";
import type { Authenticator } from "../auth/authenticator.ts";
import { operation } from "../contract/operation.ts";
import { operationRoutes, route } from "../contract/operation-routes.ts";
import { type RebuildFilter, rebuildProjection } from "../projection/rebuild.ts";
import type { ReportingMetrics } from "../server/reporting-metrics.ts";

const filterMember = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 512, description }));

export const rebuildProjectionOperation = operation({
  method: "POST",
  path: "/internal/projection/rebuild",
  operationId: "rebuildProjection",
  tag: "internal",
  summary: "Refold the projection rows of the resources a filter selects",
  description:
    "Members combine with AND; {} selects every resource; a resource is selected when any of its stored events matches. More than 200,000 selected resources is 413.",
  security: "internal",
  body: Type.Object(
    {
      cloud: filterMember("the cloud"),
      resource_type: filterMember("the resource type"),
      resource_id: filterMember("the resource id"),
      project_id: filterMember("any owner the resource had"),
    },
    { $id: "RebuildRequest", additionalProperties: false },
  ),
  success: {
    200: {
      description: "RebuildResult",
      schema: Type.Object(
        { resources: Type.Integer({ minimum: 0 }), events: Type.Integer({ minimum: 0 }) },
        { $id: "RebuildResult", additionalProperties: false },
      ),
    },
  },
  errors: [413],
});

/**
 * `POST /internal/projection/rebuild` (credential internalToken): refolds every resource the filter
 * selects and answers when done with the counts. A filter selecting more than one call refolds is 413.
 * A misspelt member is refused by the contract (no additional members), so it cannot widen a rebuild.
 */
export function rebuildRoute(deps: { auth: Authenticator; sql: Sql; metrics: ReportingMetrics }) {
  return operationRoutes("reporting-rebuild", deps.auth, [
    route(rebuildProjectionOperation, async ({ body }) => {
      const stop = deps.metrics.rebuildSeconds.startTimer();
      try {
        const filter: RebuildFilter = body;
        const result = await rebuildProjection(deps.sql, filter);
        deps.metrics.projectionRefolds.inc({ path: "rebuild" }, result.resources);
        return result;
      } finally {
        stop();
      }
    }),
  ]);
}
