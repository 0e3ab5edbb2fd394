import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import type { Sql } from "postgres";
import { type FieldError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { operation } from "../contract/operation.ts";
import { describeDatabaseFailure } from "../database-failure.ts";
import { type RebuildFilter, rebuildProjection } from "../projection/rebuild.ts";
import type { ReportingMetrics } from "../server/reporting-metrics.ts";

const filterMembers = ["cloud", "resource_type", "resource_id", "project_id"] as const;

/**
 * RebuildRequest: an object of optional non-empty strings (at most 512 characters) `cloud`,
 * `resource_type`, `resource_id`, `project_id`; members combine with AND and `{}` selects every
 * resource (see rebuild.ts). Checked here rather than by the schema layer, which would silently strip
 * an unknown member instead of refusing it, and a misspelt member must not widen a rebuild to all.
 */
export function parseRebuildFilter(body: unknown): RebuildFilter {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ValidationError("the body must be a RebuildRequest object", [
      { loc: "body", msg: "must be an object" },
    ]);
  }
  const errors: FieldError[] = [];
  const filter: RebuildFilter = {};
  for (const [member, value] of Object.entries(body)) {
    if (!(filterMembers as readonly string[]).includes(member)) {
      errors.push({ loc: `body.${member}`, msg: `is not a filter member (${filterMembers.join(", ")})` });
    } else if (typeof value !== "string" || value.length === 0 || value.length > 512) {
      errors.push({ loc: `body.${member}`, msg: "must be a string of 1 to 512 characters" });
    } else if (value.includes("\u0000")) {
      errors.push({ loc: `body.${member}`, msg: "must not contain U+0000" });
    } else {
      filter[member as (typeof filterMembers)[number]] = value;
    }
  }
  if (errors.length > 0) throw new ValidationError("the rebuild filter is not valid", errors);
  return filter;
}

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
  bodyCheckedByHandler: true,
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
 */
export function rebuildRoute(deps: { auth: Authenticator; sql: Sql; metrics: ReportingMetrics }) {
  return new Elysia({ name: "reporting-rebuild" }).post(
    "/internal/projection/rebuild",
    async ({ request, body }) => {
      deps.auth.internal(request);
      const stop = deps.metrics.rebuildSeconds.startTimer();
      try {
        const result = await rebuildProjection(deps.sql, parseRebuildFilter(body));
        deps.metrics.projectionRefolds.inc({ path: "rebuild" }, result.resources);
        return result;
      } catch (error) {
        throw describeDatabaseFailure(error);
      } finally {
        stop();
      }
    },
    { parse: "json" },
  );
}
