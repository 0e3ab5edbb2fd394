import type { Sql } from "postgres";
import { NotFoundError } from "../../../foundation/errors/svc-error.ts";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { ApiPrincipal } from "../auth/credential-lookup.ts";
import { roleCovers } from "../auth/roles.ts";
import { operation } from "../contract/operation.ts";
import { operationRoutes, route } from "../contract/operation-routes.ts";
import {
  CreateProjectSchema,
  listProjectsQuery,
  ProjectListSchema,
  ProjectSchema,
  projectIdParams,
} from "../contract/project-schemas.ts";
import { createProject, findProject, listProjects, type Project } from "../registry/projects.ts";
import { auditActor, scopeOf } from "./principal-scope.ts";

export const createProjectOperation = operation({
  method: "POST",
  path: "/api/v1/projects",
  operationId: "createProject",
  tag: "projects",
  summary: "Register a project under (cloud, external_id)",
  description:
    "201 with Location. A pair already held is 409 and nothing is replaced; the same external id under another cloud is another project. A meta or partner platform/cloud mismatch is 422 without a write.",
  security: "api",
  role: "admin",
  body: CreateProjectSchema,
  success: {
    201: { description: "Project", schema: ProjectSchema, headers: { Location: "the project's URL" } },
  },
  errors: [409, 413, 422],
});

export const listProjectsOperation = operation({
  method: "GET",
  path: "/api/v1/projects",
  operationId: "listProjects",
  tag: "projects",
  summary: "The project registry in (cloud, external_id) order",
  description:
    "A scoped token lists its own projects. name and metadata are served to role read_all and above.",
  security: "api",
  role: "reader",
  query: listProjectsQuery,
  success: { 200: { description: "ProjectList", schema: ProjectListSchema } },
  errors: [],
});

export const getProjectOperation = operation({
  method: "GET",
  path: "/api/v1/projects/{id}",
  operationId: "getProject",
  tag: "projects",
  summary: "One registry row with its name and metadata",
  description: "An unknown project and one outside the token's scope are the identical 404.",
  security: "api",
  role: "read_all",
  params: projectIdParams,
  success: { 200: { description: "Project", schema: ProjectSchema } },
  errors: [404],
});

/** Name and metadata are the registry row proper: role read_all and above (decision 102). */
function projectView(project: Project, principal: ApiPrincipal | null) {
  if (principal === null || roleCovers(principal.role, "read_all")) return project;
  const { name: _name, metadata: _metadata, ...identity } = project;
  return identity;
}

/** A project the caller may see, or the one 404 for unknown and out-of-scope alike. */
export async function visibleProject(sql: Sql, id: string, principal: ApiPrincipal | null): Promise<Project> {
  const scope = scopeOf(principal);
  const project = scope === null || scope.includes(id) ? await findProject(sql, id) : null;
  if (project === null) throw new NotFoundError(`no project ${id}`);
  return project;
}

export function projectRoutes(deps: { auth: Authenticator; sql: Sql }) {
  const { sql } = deps;
  return operationRoutes("reporting-projects", deps.auth, [
    route(createProjectOperation, async ({ body, principal }) => {
      const project = await createProject(
        sql,
        {
          platform: body.platform,
          cloud: body.cloud,
          external_id: body.external_id,
          name: body.name ?? null,
          // A parsed JSON body holds only JSON values.
          metadata: (body.metadata ?? {}) as JsonObject,
        },
        auditActor(principal),
      );
      return Response.json(project, {
        status: 201,
        headers: { location: `/api/v1/projects/${project.id}` },
      });
    }),
    route(listProjectsOperation, async ({ query, principal }) => {
      const page = await listProjects(sql, { ...query, scope: scopeOf(principal) });
      return { ...page, items: page.items.map((p) => projectView(p, principal)) };
    }),
    route(getProjectOperation, async ({ params, principal }) => visibleProject(sql, params.id, principal)),
  ]);
}
