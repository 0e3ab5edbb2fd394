import type { Sql } from "postgres";
import type { Authenticator } from "../auth/authenticator.ts";
import { operation } from "../contract/operation.ts";
import { operationRoutes, route } from "../contract/operation-routes.ts";
import {
  DeadLetterListSchema,
  EventListSchema,
  listEventsQuery,
  listRejectedQuery,
  listResourcesQuery,
  ResourceListSchema,
} from "../contract/read-schemas.ts";
import { listEvents } from "../reads/event-list.ts";
import { listRejectedEvents } from "../reads/rejected-list.ts";
import { listResources } from "../reads/resource-list.ts";
import { scopeOf } from "./principal-scope.ts";

export const listEventsOperation = operation({
  method: "GET",
  path: "/api/v1/events",
  operationId: "listEvents",
  tag: "events",
  summary: "The stored history in (timestamp, event_id) order",
  description:
    "from/to bound the event timestamp. A project token reads every event naming one of its projects, including events before a transfer away.",
  security: "api",
  role: "reader",
  query: listEventsQuery,
  success: { 200: { description: "EventList", schema: EventListSchema } },
  errors: [],
});

export const listResourcesOperation = operation({
  method: "GET",
  path: "/api/v1/resources",
  operationId: "listResources",
  tag: "resources",
  summary: "The projection (what each resource is now) in (cloud, resource_type, resource_id) order",
  description: "A project token reads the resources one of its projects owns now.",
  security: "api",
  role: "reader",
  query: listResourcesQuery,
  success: { 200: { description: "ResourceList", schema: ResourceListSchema } },
  errors: [],
});

export const listRejectedOperation = operation({
  method: "GET",
  path: "/api/v1/rejected-events",
  operationId: "listRejectedEvents",
  tag: "events",
  summary: "Refused ingest items with the reason and the body as submitted, in (received_at, id) order",
  description: "from/to bound received_at (when the item was refused). Role admin.",
  security: "api",
  role: "admin",
  query: listRejectedQuery,
  success: { 200: { description: "DeadLetterList", schema: DeadLetterListSchema } },
  errors: [],
});

/** The paged lists of events, resources and dead letters (projects are in project-routes.ts). */
export function listRoutes(deps: { auth: Authenticator; sql: Sql }) {
  const { sql } = deps;
  return operationRoutes("reporting-lists", deps.auth, [
    route(listEventsOperation, async ({ query, principal }) =>
      listEvents(sql, { ...query, scope: scopeOf(principal) }),
    ),
    route(listResourcesOperation, async ({ query, principal }) =>
      listResources(sql, { ...query, scope: scopeOf(principal) }),
    ),
    route(listRejectedOperation, async ({ query }) => listRejectedEvents(sql, query)),
  ]);
}
