import { Elysia } from "elysia";
import type { Sql } from "postgres";
import { NotFoundError, SvcError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import { readJsonBody } from "../../../foundation/http/json-body.ts";
import { readPart } from "../../../foundation/http/request-input.ts";
import type { Logger } from "../../../foundation/log/logger.ts";
import { canonicalInstant } from "../../../foundation/time/instant.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import type { Cloud } from "../clouds/clouds-file.ts";
import { operation } from "../contract/operation.ts";
import { maxBodyBytes, maxBodyDepth } from "../contract/operation-routes.ts";
import { SyncRequestSchema, SyncResultSchema, syncCloudParams } from "../contract/sync-schemas.ts";
import { describeDatabaseFailure } from "../database-failure.ts";
import type { EventPartitions } from "../event-partitions.ts";
import type { ReportingMetrics } from "../server/reporting-metrics.ts";
import { runSync, SyncRunFailedError } from "../sync/sync-run.ts";

export const syncCloudOperation = operation({
  method: "POST",
  path: "/internal/sync/{cloud}",
  operationId: "syncCloud",
  tag: "internal",
  summary: "Reconcile a cloud now: observe it, diff against the projection, ingest the difference",
  description:
    "One synchronous run; callers need a timeout of SVC_REPORTING_SYNC_BUDGET_S + 20 s. 404 for a cloud the clouds file does not name, 409 while another run (any process) holds the cloud, 400 for `at` unless SVC_REPORTING_SYNC_ALLOW_AT, 500 when the run failed (the platform refused or did not answer, or the budget ran out): its sync_runs row says why.",
  security: "internal",
  params: syncCloudParams,
  body: SyncRequestSchema,
  success: { 200: { description: "SyncResult", schema: SyncResultSchema } },
  errors: [404, 409, 413],
});

/** The sync settings (docs/reconciliation.md#configuration). */
export interface SyncSettings {
  /** SVC_REPORTING_SYNC_ALLOW_AT */
  allowAt: boolean;
  /** SVC_REPORTING_SYNC_BUDGET_S */
  budgetS: number;
  /** SVC_REPORTING_SYNC_SETTLE_S */
  settleS: number;
}

/** The server's defaults (docs/reconciliation.md#configuration), for apps built without the environment (tests). */
export const defaultSyncSettings: SyncSettings = { allowAt: false, budgetS: 45, settleS: 60 };

interface SyncRouteDeps {
  auth: Authenticator;
  sql: Sql;
  partitions: EventPartitions;
  metrics: ReportingMetrics;
  logger: Logger;
  requireSizeSchema: boolean;
  clouds: ReadonlyMap<string, Cloud>;
  sync: SyncSettings;
}

/** What the response waits beyond the budget for a stopped run to record itself (docs/reconciliation.md#post-internalsynccloud). */
const closingMs = 15_000;
/** Bun's longest idle timeout for one request; beyond it the timeout is lifted and our deadline rules. */
const longestIdleS = 255;

/**
 * `POST /internal/sync/{cloud}` (credential internalToken): one synchronous run of `runSync`. The
 * request's idle timeout is raised to the budget plus 15 s, and the answer comes by then at the latest:
 * a run stopped by its budget has that long to record itself failed.
 */
export function syncRoute(deps: SyncRouteDeps) {
  const budgetMs = deps.sync.budgetS * 1000;
  return new Elysia({ name: "reporting-sync" }).post(
    "/internal/sync/:cloud",
    async ({ request, params, server }) => {
      deps.auth.internal(request);
      const { cloud: name } = readPart(syncCloudParams, params, "path");
      const cloud = deps.clouds.get(name);
      if (cloud === undefined) {
        throw new NotFoundError(
          deps.clouds.size === 0
            ? "no clouds are configured (SVC_REPORTING_CLOUDS_CONFIG is unset)"
            : `the clouds file names no cloud ${name}`,
        );
      }
      const raw = await readJsonBody(request, { maxBytes: maxBodyBytes, maxDepth: maxBodyDepth });
      const body = readPart(SyncRequestSchema, raw, "body");
      if (body.at !== undefined && !deps.sync.allowAt) {
        throw new ValidationError("the run instant can be set only with SVC_REPORTING_SYNC_ALLOW_AT", [
          { loc: "body.at", msg: "is not allowed: SVC_REPORTING_SYNC_ALLOW_AT is false" },
        ]);
      }
      const waitS = deps.sync.budgetS + closingMs / 1000;
      server?.timeout(request, waitS <= longestIdleS ? waitS : 0);

      const stop = deps.metrics.syncSeconds.startTimer({ cloud: name });
      const run = runSync(
        {
          sql: deps.sql,
          partitions: deps.partitions,
          requireSizeSchema: deps.requireSizeSchema,
          logger: deps.logger,
          onIngest: (outcome) => deps.metrics.recordIngest(outcome),
        },
        {
          cloud,
          ...(body.at === undefined ? {} : { at: canonicalInstant(body.at) }),
          settleMs: deps.sync.settleS * 1000,
          budgetMs,
        },
      );
      const outcome = run.then(
        (result) => {
          deps.metrics.syncRuns.inc({ cloud: name, outcome: "succeeded" });
          stop();
          return result;
        },
        (error: unknown) => {
          if (error instanceof SyncRunFailedError) {
            deps.metrics.syncRuns.inc({ cloud: name, outcome: "failed" });
            stop();
          }
          throw describeDatabaseFailure(error);
        },
      );
      // Past the deadline the run still ends (and records itself) on its own; nobody awaits it then.
      outcome.catch(() => {});
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new SvcError(
                "internal",
                `the sync of cloud ${name} did not end within its budget plus ${closingMs / 1000} s; its sync_runs row says how it ended`,
              ),
            ),
          budgetMs + closingMs,
        );
      });
      try {
        return await Promise.race([outcome, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
    { parse: "none" },
  );
}
