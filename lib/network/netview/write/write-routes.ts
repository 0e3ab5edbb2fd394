/**
 * `/api/v1/write/*` (decision 355): refused with 403 unless the server runs with `--write-enabled`,
 * then 401 without the write token (even the reads: plans and the audit describe the network's
 * control plane and who changed it); every route that changes anything is audited.
 */
import { type DocumentDecoration, Elysia } from "elysia";
import type { Secret } from "../../../foundation/config/secret.ts";
import { needsWriteToken } from "../openapi-document.ts";
import { jsonBody, listOf, responses, tokenErrors } from "../openapi-shapes.ts";
import { openapiParameters, type ParamSpec } from "../query-params.ts";
import {
  auditEntrySchema,
  auditSummarySchema,
  evacuateSchema,
  failoverSchema,
  planSchema,
  restoreSchema,
  rollbackSchema,
  writeRequestSchema,
  writeSchemaSchema,
} from "./write-shapes.ts";
import { type Guard, requireToken } from "./write-token.ts";
import type { Writes } from "./writes.ts";

export interface WriteSettings {
  writeEnabled: boolean;
  writeToken: Secret | undefined;
}

const tags = ["write"];

const auditParams: ParamSpec[] = [
  {
    name: "limit",
    type: "integer",
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: "Most entries returned, newest first",
  },
  { name: "before", type: "integer", minimum: 1, description: "Only entries with a smaller id (page on)" },
  { name: "plan", type: "string", description: "Only the entries of this plan" },
];

const clusterParam: ParamSpec[] = [
  { name: "cluster", type: "string", description: "The cluster (default: the default cluster)" },
];

/** What every write route's document says: the token it needs, and the refusals of the guard. */
const guarded = (
  summary: string,
  answer: { schema: Record<string, unknown>; status?: 200 | 201; errors?: Record<number, string> },
  more: Partial<DocumentDecoration> = {},
) => ({
  tags,
  summary,
  security: needsWriteToken,
  responses: responses(
    answer.schema,
    { ...answer.errors, ...tokenErrors },
    answer.status === undefined ? {} : { status: answer.status },
  ),
  ...more,
});

const planErrors = {
  400: "invalid body: every problem named",
  409: "a unique index or row limit the plan would break, a loaded snapshot, or a row changed since it was read",
  503: "the northbound database has not been synced yet",
};
const unknownPlan = { 404: "not found" };
export function writeRoutes(writes: Writes, settings: WriteSettings) {
  /** The guard every write route runs first; answers who is calling for the audit. */
  const authorize: Guard = (context) =>
    requireToken(
      context,
      settings.writeEnabled ? settings.writeToken : undefined,
      "write routes are disabled: the server runs without --write-enabled",
    );
  const query = (q: unknown) => (q ?? {}) as Record<string, unknown>;
  return new Elysia({ name: "netview-write" })
    .get(
      "/api/v1/write/schema",
      (context) => {
        authorize(context);
        const cluster = query(context.query).cluster;
        return writes.schema(typeof cluster === "string" ? cluster : undefined);
      },
      {
        detail: guarded(
          "What can be changed: the server's northbound tables and columns with their rules, operations and actions",
          { schema: writeSchemaSchema, errors: { 404: "unknown cluster", 503: planErrors[503] } },
          { parameters: openapiParameters(clusterParam) },
        ),
      },
    )
    .post(
      "/api/v1/write/preview",
      (context) => withStatus(context, 201, writes.preview(context.body, authorize(context), false)),
      {
        detail: guarded(
          "Prepare a plan from row operations, predicted from the cache; nothing is applied",
          { schema: planSchema, status: 201, errors: planErrors },
          { requestBody: jsonBody(writeRequestSchema) },
        ),
      },
    )
    .post(
      "/api/v1/write/dry-run",
      (context) => withStatus(context, 201, writes.preview(context.body, authorize(context), true)),
      {
        detail: guarded(
          "As preview, and the server also runs the operations and rolls them back",
          {
            schema: planSchema,
            status: 201,
            errors: { ...planErrors, 422: "the server refuses the operations (its words)" },
          },
          { requestBody: jsonBody(writeRequestSchema) },
        ),
      },
    )
    .get(
      "/api/v1/write/plans/:id",
      (context) => {
        authorize(context);
        return writes.get(context.params.id);
      },
      {
        detail: guarded("One plan: its changes, predicted effect, state and result", {
          schema: planSchema,
          errors: unknownPlan,
        }),
      },
    )
    .post("/api/v1/write/plans/:id/apply", (context) => writes.apply(context.params.id, authorize(context)), {
      detail: guarded(
        "Apply a prepared plan in one transaction that first checks every row it read is unchanged (409 stale otherwise)",
        {
          schema: planSchema,
          errors: {
            ...unknownPlan,
            409: "the plan is stale (a row it read has changed), not prepared, or a snapshot is loaded",
            422: "the server refuses the transaction: the plan failed",
            503: "the northbound database cannot be reached: the plan stays prepared",
          },
        },
      ),
    })
    .delete("/api/v1/write/plans/:id", (context) => writes.cancel(context.params.id, authorize(context)), {
      detail: guarded("Cancel a prepared plan", {
        schema: planSchema,
        errors: { ...unknownPlan, 409: "the plan is not prepared" },
      }),
    })
    .post(
      "/api/v1/write/failover",
      (context) => withStatus(context, 201, writes.failover(context.body, authorize(context))),
      {
        detail: guarded(
          "Plan moving a gateway to the next (or the named) chassis",
          {
            schema: planSchema,
            status: 201,
            errors: { ...planErrors, 404: "no such router port or HA chassis group" },
          },
          { requestBody: jsonBody(failoverSchema) },
        ),
      },
    )
    .post(
      "/api/v1/write/evacuate",
      (context) => withStatus(context, 201, writes.evacuate(context.body, authorize(context))),
      {
        detail: guarded(
          "Plan moving every gateway active on a chassis to the next one",
          {
            schema: planSchema,
            status: 201,
            errors: {
              ...planErrors,
              409: "the chassis is active for no gateway, or no other chassis is present",
            },
          },
          { requestBody: jsonBody(evacuateSchema) },
        ),
      },
    )
    .post(
      "/api/v1/write/rollback",
      (context) => withStatus(context, 201, writes.rollback(context.body, authorize(context))),
      {
        detail: guarded(
          "Plan undoing an applied plan, row by row as it left them",
          {
            schema: planSchema,
            status: 201,
            errors: {
              ...planErrors,
              ...unknownPlan,
              409: "the plan is not applied, or a row has changed since",
            },
          },
          { requestBody: jsonBody(rollbackSchema) },
        ),
      },
    )
    .post(
      "/api/v1/write/restore",
      (context) => withStatus(context, 201, writes.restore(context.body, authorize(context))),
      {
        detail: guarded(
          "Plan returning northbound tables to a snapshot",
          {
            schema: planSchema,
            status: 201,
            errors: { ...planErrors, 404: "no such snapshot (or cluster)" },
          },
          { requestBody: jsonBody(restoreSchema) },
        ),
      },
    )
    .get(
      "/api/v1/write/audit",
      (context) => {
        authorize(context);
        return writes.auditList(query(context.query));
      },
      {
        detail: guarded(
          "The audit of writes, newest first",
          { schema: listOf(auditSummarySchema), errors: { 400: "invalid limit or before" } },
          { parameters: openapiParameters(auditParams) },
        ),
      },
    )
    .get(
      "/api/v1/write/audit/:id",
      (context) => {
        authorize(context);
        return writes.auditEntry(context.params.id);
      },
      {
        detail: guarded("One audit entry with the changes it covered", {
          schema: auditEntrySchema,
          errors: { 404: "not found" },
        }),
      },
    );
}

async function withStatus<T>(
  context: { set: { status?: number | string } },
  status: number,
  value: T | Promise<T>,
): Promise<T> {
  const result = await value;
  context.set.status = status;
  return result;
}
