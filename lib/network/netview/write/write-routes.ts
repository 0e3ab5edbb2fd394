/**
 * `/api/v1/write/*` (decision 355): refused with 403 unless the server runs with `--write-enabled`,
 * then 401 without the write token (even the reads: plans and the audit describe the network's
 * control plane and who changed it); every route that changes anything is audited.
 */
import { Elysia } from "elysia";
import type { Secret } from "../../../foundation/config/secret.ts";
import type { Actor } from "./audit-store.ts";
import type { Plan } from "./plan.ts";
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
  /** The handler of a route that makes a plan from the body for the caller: 201 with the plan. */
  const makesPlan =
    (make: (body: unknown, actor: Actor) => Plan | Promise<Plan>) =>
    (context: GuardedContext & { body: unknown }) =>
      withStatus(context, 201, make(context.body, authorize(context)));
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
      makesPlan((body, actor) => writes.preview(body, actor, false)),
      { detail: writeDocs.preview },
    )
    .post(
      "/api/v1/write/dry-run",
      makesPlan((body, actor) => writes.preview(body, actor, true)),
      { detail: writeDocs.dryRun },
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
      makesPlan((body, actor) => writes.failover(body, actor)),
      { detail: writeDocs.failover },
    )
    .post(
      "/api/v1/write/evacuate",
      makesPlan((body, actor) => writes.evacuate(body, actor)),
      { detail: writeDocs.evacuate },
    )
    .post(
      "/api/v1/write/rollback",
      makesPlan((body, actor) => writes.rollback(body, actor)),
      { detail: writeDocs.rollback },
    )
    .post(
      "/api/v1/write/restore",
      makesPlan((body, actor) => writes.restore(body, actor)),
      { detail: writeDocs.restore },
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

type GuardedContext = Parameters<Guard>[0] & { set: { status?: number | string } };

async function withStatus<T>(
  context: { set: { status?: number | string } },
  status: number,
  value: T | Promise<T>,
): Promise<T> {
  const result = await value;
  context.set.status = status;
  return result;
}
