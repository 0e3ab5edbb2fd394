import type { Sql } from "postgres";
import { NotImplementedError } from "../../../foundation/errors/svc-error.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { operation } from "../contract/operation.ts";
import { operationRoutes, route } from "../contract/operation-routes.ts";
import { projectIdParams } from "../contract/project-schemas.ts";
import {
  EventStatsListSchema,
  eventStatsQuery,
  ProjectSummarySchema,
  ResourceHistorySchema,
  ResourceStatsListSchema,
  resourceHistoryQuery,
  resourceStatsQuery,
  summaryQuery,
} from "../contract/summary-schemas.ts";
import { eventDimensions, eventStats } from "../reads/event-stats.ts";
import { projectSummary } from "../reads/project-summary.ts";
import { resourceHistory } from "../reads/resource-history.ts";
import { resourceDimensions, resourceStats } from "../reads/resource-stats.ts";
import { parseGroupBy } from "../reads/stats-grouping.ts";
import { scopeOf } from "./principal-scope.ts";
import { visibleProject } from "./project-routes.ts";

export const projectSummaryOperation = operation({
  method: "GET",
  path: "/api/v1/projects/{id}/summary",
  operationId: "projectSummary",
  tag: "projects",
  summary: "Per resource type: created, deleted and minutes held in [from, to), and active now",
  description:
    "Minutes fold each resource's history with the one fold, clipped to the window; a resource that changed hands counts in each project over the span it held it. An unknown and an out-of-scope project are the identical 404; a resource history longer than the per-resource bound is history_too_long.",
  security: "api",
  role: "reader",
  params: projectIdParams,
  query: summaryQuery,
  success: { 200: { description: "ProjectSummary", schema: ProjectSummarySchema } },
  errors: [404, 422],
});

export const resourceStatsOperation = operation({
  method: "GET",
  path: "/api/v1/stats/resources",
  operationId: "resourceStats",
  tag: "stats",
  summary: "Counts of the current projection per grouped combination (never paginated)",
  security: "api",
  role: "reader",
  query: resourceStatsQuery,
  success: { 200: { description: "ResourceStatsList", schema: ResourceStatsListSchema } },
  errors: [422, 501],
});

export const eventStatsOperation = operation({
  method: "GET",
  path: "/api/v1/stats/events",
  operationId: "eventStats",
  tag: "stats",
  summary: "Stored events per UTC-aligned time bucket and grouped combination (never paginated)",
  security: "api",
  role: "reader",
  query: eventStatsQuery,
  success: { 200: { description: "EventStatsList", schema: EventStatsListSchema } },
  errors: [422],
});

export const resourceHistoryOperation = operation({
  method: "GET",
  path: "/api/v1/resources/history",
  operationId: "resourceHistory",
  tag: "resources",
  summary: "One resource's stored events and the intervals the fold makes of them (bounded)",
  description:
    "Event-scoped like the event list. A resource with no visible event is 404; a history longer than the per-resource bound is history_too_long.",
  security: "api",
  role: "reader",
  query: resourceHistoryQuery,
  success: { 200: { description: "ResourceHistory", schema: ResourceHistorySchema } },
  errors: [404, 422],
});

export function summaryRoutes(deps: { auth: Authenticator; sql: Sql }) {
  const { sql } = deps;
  return operationRoutes("reporting-summaries", deps.auth, [
    route(projectSummaryOperation, async ({ params, query, principal }) =>
      projectSummary(sql, await visibleProject(sql, params.id, principal), query),
    ),
    route(resourceStatsOperation, async ({ query, principal }) => {
      const groupBy = parseGroupBy(query.group_by, resourceDimensions, ["cloud", "resource_type"]);
      if (query.at !== undefined)
        throw new NotImplementedError(
          "counts at an instant (at) are not implemented; omit it for current counts",
        );
      return resourceStats(sql, { groupBy, status: query.status, scope: scopeOf(principal) });
    }),
    route(eventStatsOperation, async ({ query, principal }) =>
      eventStats(sql, {
        groupBy: parseGroupBy(query.group_by, eventDimensions, ["cloud", "event_type"]),
        from: query.from,
        to: query.to,
        interval: query.interval,
        scope: scopeOf(principal),
      }),
    ),
    route(resourceHistoryOperation, async ({ query, principal }) =>
      resourceHistory(sql, query, scopeOf(principal)),
    ),
  ]);
}
