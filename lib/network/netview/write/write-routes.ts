/**
 * `/api/v1/write/*` (decision 355): refused with 403 unless the server runs with `--write-enabled`,
 * then 401 without the write token (even the reads: plans and the audit describe the network's
 * control plane and who changed it); every route that changes anything is audited.
 */
import { Elysia } from "elysia";
import type { Secret } from "../../../foundation/config/secret.ts";
import { writeDocs } from "./write-shapes.ts";
import { type Guard, requireToken } from "./write-token.ts";
import type { Writes } from "./writes.ts";

export interface WriteSettings {
  writeEnabled: boolean;
  writeToken: Secret | undefined;
}

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
        detail: writeDocs.schema,
      },
    )
    .post(
      "/api/v1/write/preview",
      (context) => withStatus(context, 201, writes.preview(context.body, authorize(context), false)),
      {
        detail: writeDocs.preview,
      },
    )
    .post(
      "/api/v1/write/dry-run",
      (context) => withStatus(context, 201, writes.preview(context.body, authorize(context), true)),
      {
        detail: writeDocs.dryRun,
      },
    )
    .get(
      "/api/v1/write/plans/:id",
      (context) => {
        authorize(context);
        return writes.get(context.params.id);
      },
      {
        detail: writeDocs.plan,
      },
    )
    .post("/api/v1/write/plans/:id/apply", (context) => writes.apply(context.params.id, authorize(context)), {
      detail: writeDocs.apply,
    })
    .delete("/api/v1/write/plans/:id", (context) => writes.cancel(context.params.id, authorize(context)), {
      detail: writeDocs.cancel,
    })
    .post(
      "/api/v1/write/failover",
      (context) => withStatus(context, 201, writes.failover(context.body, authorize(context))),
      {
        detail: writeDocs.failover,
      },
    )
    .post(
      "/api/v1/write/evacuate",
      (context) => withStatus(context, 201, writes.evacuate(context.body, authorize(context))),
      {
        detail: writeDocs.evacuate,
      },
    )
    .post(
      "/api/v1/write/rollback",
      (context) => withStatus(context, 201, writes.rollback(context.body, authorize(context))),
      {
        detail: writeDocs.rollback,
      },
    )
    .post(
      "/api/v1/write/restore",
      (context) => withStatus(context, 201, writes.restore(context.body, authorize(context))),
      {
        detail: writeDocs.restore,
      },
    )
    .get(
      "/api/v1/write/audit",
      (context) => {
        authorize(context);
        return writes.auditList(query(context.query));
      },
      {
        detail: writeDocs.audit,
      },
    )
    .get(
      "/api/v1/write/audit/:id",
      (context) => {
        authorize(context);
        return writes.auditEntry(context.params.id);
      },
      {
        detail: writeDocs.auditEntry,
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
