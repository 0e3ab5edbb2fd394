/**
 * `/api/v1/write/*` (decision 355): refused with 403 unless the server runs with `--write-enabled`,
 * then 401 without the write token (even the reads: plans and the audit describe the network's
 * control plane and who changed it); every route that changes anything is audited.
 */
import { Elysia } from "elysia";
import type { Secret } from "../../../foundation/config/secret.ts";
import { type Guard, requireToken } from "./write-token.ts";
import type { Writes } from "./writes.ts";

export interface WriteSettings {
  writeEnabled: boolean;
  writeToken: Secret | undefined;
}

const tags = ["write"];

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
        detail: {
          tags,
          summary: "What can be changed: the server's northbound tables and columns, operations and actions",
        },
      },
    )
    .post(
      "/api/v1/write/preview",
      (context) => withStatus(context, 201, writes.preview(context.body, authorize(context), false)),
      {
        detail: {
          tags,
          summary: "Prepare a plan from row operations, predicted from the cache; nothing is applied",
        },
      },
    )
    .post(
      "/api/v1/write/dry-run",
      (context) => withStatus(context, 201, writes.preview(context.body, authorize(context), true)),
      {
        detail: { tags, summary: "As preview, and the server also runs the operations and rolls them back" },
      },
    )
    .get(
      "/api/v1/write/plans/:id",
      (context) => {
        authorize(context);
        return writes.get(context.params.id);
      },
      { detail: { tags, summary: "One plan: its changes, predicted effect, state and result" } },
    )
    .post("/api/v1/write/plans/:id/apply", (context) => writes.apply(context.params.id, authorize(context)), {
      detail: {
        tags,
        summary:
          "Apply a prepared plan in one transaction that first checks every row it read is unchanged (409 stale otherwise)",
      },
    })
    .delete("/api/v1/write/plans/:id", (context) => writes.cancel(context.params.id, authorize(context)), {
      detail: { tags, summary: "Cancel a prepared plan" },
    })
    .post(
      "/api/v1/write/failover",
      (context) => withStatus(context, 201, writes.failover(context.body, authorize(context))),
      {
        detail: { tags, summary: "Plan moving a gateway to the next (or the named) chassis" },
      },
    )
    .post(
      "/api/v1/write/evacuate",
      (context) => withStatus(context, 201, writes.evacuate(context.body, authorize(context))),
      {
        detail: { tags, summary: "Plan moving every gateway active on a chassis to the next one" },
      },
    )
    .post(
      "/api/v1/write/rollback",
      (context) => withStatus(context, 201, writes.rollback(context.body, authorize(context))),
      {
        detail: { tags, summary: "Plan undoing an applied plan, row by row as it left them" },
      },
    )
    .post(
      "/api/v1/write/restore",
      (context) => withStatus(context, 201, writes.restore(context.body, authorize(context))),
      {
        detail: { tags, summary: "Plan returning northbound tables to a snapshot" },
      },
    )
    .get(
      "/api/v1/write/audit",
      (context) => {
        authorize(context);
        return writes.auditList(query(context.query));
      },
      { detail: { tags, summary: "The audit of writes, newest first (limit, before, plan)" } },
    )
    .get(
      "/api/v1/write/audit/:id",
      (context) => {
        authorize(context);
        return writes.auditEntry(context.params.id);
      },
      { detail: { tags, summary: "One audit entry with the changes it covered" } },
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
