import type { Sql } from "postgres";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { operation } from "../contract/operation.ts";
import { operationRoutes, route } from "../contract/operation-routes.ts";
import { projectIdParams } from "../contract/project-schemas.ts";
import {
  CreateRelationSchema,
  listRelationsQuery,
  RelationListSchema,
  RelationSchema,
  relationParams,
  UpdateRelationSchema,
} from "../contract/relation-schemas.ts";
import { createRelation, listRelations, updateRelation } from "../registry/relations.ts";
import { auditActor } from "./principal-scope.ts";
import { visibleProject } from "./project-routes.ts";

export const createRelationOperation = operation({
  method: "POST",
  path: "/api/v1/projects/{id}/relations",
  operationId: "createRelation",
  tag: "relations",
  summary: "Relate the project to a target project",
  description:
    "404 for an unknown source; 422 for an unknown or identical target, a managed_by or member_of target that is not virtual, and pricing_adjustments breaking a rule (one error per violation); 409 while the same (source, target, type) is in force, and the relation_cycle problem when an attributing type would close a cycle with relations in force together with it over any span, closed ones included (decision 142).",
  security: "api",
  role: "admin",
  params: projectIdParams,
  body: CreateRelationSchema,
  success: {
    201: { description: "Relation", schema: RelationSchema, headers: { Location: "the relation's URL" } },
  },
  errors: [404, 409, 413, 422],
});

export const updateRelationOperation = operation({
  method: "PATCH",
  path: "/api/v1/projects/{id}/relations/{relation_id}",
  operationId: "updateRelation",
  tag: "relations",
  summary: "Replace a relation's metadata, or close it with valid_to",
  security: "api",
  role: "admin",
  params: relationParams,
  body: UpdateRelationSchema,
  success: { 200: { description: "Relation", schema: RelationSchema } },
  errors: [404, 409, 413, 422],
});

export const listRelationsOperation = operation({
  method: "GET",
  path: "/api/v1/projects/{id}/relations",
  operationId: "listRelations",
  tag: "relations",
  summary: "A project's relations, closed ones included, in (valid_from, id) order",
  description: "An unknown project and one outside the token's scope are the identical 404.",
  security: "api",
  role: "read_all",
  params: projectIdParams,
  query: listRelationsQuery,
  success: { 200: { description: "RelationList", schema: RelationListSchema } },
  errors: [404],
});

export function relationRoutes(deps: {
  auth: Authenticator;
  sql: Sql;
  attributingRelationTypes: readonly string[];
}) {
  const { sql } = deps;
  return operationRoutes("reporting-relations", deps.auth, [
    route(createRelationOperation, async ({ params, body, principal }) => {
      const relation = await createRelation(
        sql,
        {
          source_id: params.id,
          target_id: body.target_id,
          relation_type: body.relation_type,
          // A parsed JSON body holds only JSON values.
          metadata: (body.metadata ?? {}) as JsonObject,
          valid_from: body.valid_from,
        },
        { attributingTypes: deps.attributingRelationTypes, actor: auditActor(principal) },
      );
      return Response.json(relation, {
        status: 201,
        headers: { location: `/api/v1/projects/${relation.source_id}/relations/${relation.id}` },
      });
    }),
    route(updateRelationOperation, async ({ params, body, principal }) =>
      updateRelation(
        sql,
        { source_id: params.id, relation_id: params.relation_id },
        {
          target_id: body.target_id,
          relation_type: body.relation_type,
          metadata: body.metadata as JsonObject | undefined,
          valid_to: body.valid_to,
        },
        auditActor(principal),
      ),
    ),
    route(listRelationsOperation, async ({ params, query, principal }) => {
      await visibleProject(sql, params.id, principal);
      return listRelations(sql, {
        project_id: params.id,
        direction: query.direction ?? "outgoing",
        relation_type: query.relation_type,
        limit: query.limit,
        cursor: query.cursor,
      });
    }),
  ]);
}
