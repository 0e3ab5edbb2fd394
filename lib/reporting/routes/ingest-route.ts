import { Elysia } from "elysia";
import type { Sql } from "postgres";
import { PayloadTooLargeError, ValidationError } from "../../errors/svc-error.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { describeDatabaseFailure } from "../database-failure.ts";
import type { EventPartitions } from "../event-partitions.ts";
import { ingestItems, maxBatchItems } from "../ingest/ingest-batch.ts";
import type { ReportingMetrics } from "../server/reporting-metrics.ts";

export interface IngestRouteDeps {
  auth: Authenticator;
  sql: Sql;
  partitions: EventPartitions;
  metrics: ReportingMetrics;
  requireSizeSchema: boolean;
}

/**
 * `POST /api/v1/events` (credential ingestToken): one event or an array of at most 1000. Answers 200
 * with the IngestResult whenever the request was authorized and readable, whatever the items did; an
 * array above the limit is 413 before anything is read or stored.
 */
export function ingestRoute(deps: IngestRouteDeps) {
  return new Elysia({ name: "reporting-ingest" }).post(
    "/api/v1/events",
    async ({ request, body, set }) => {
      const principal = await deps.auth.ingest(request);
      let items: unknown[];
      let single: boolean;
      if (Array.isArray(body)) {
        if (body.length > maxBatchItems) {
          throw new PayloadTooLargeError(
            `a batch holds at most ${maxBatchItems} events; this one holds ${body.length}`,
          );
        }
        items = body;
        single = false;
      } else if (typeof body === "object" && body !== null) {
        items = [body];
        single = true;
      } else {
        throw new ValidationError("the body must be one event (an object) or an array of events", [
          { loc: "body", msg: "must be an object or an array" },
        ]);
      }
      const requestId = set.headers["x-request-id"];
      const stop = deps.metrics.ingestBatchSeconds.startTimer();
      try {
        const outcome = await ingestItems({ sql: deps.sql, partitions: deps.partitions }, items, {
          principal,
          pipeline: "collector",
          requireSizeSchema: deps.requireSizeSchema,
          single,
          ...(typeof requestId === "string" ? { requestId } : {}),
        });
        stop({ status: "stored" });
        deps.metrics.recordIngest(outcome);
        return outcome.result;
      } catch (error) {
        stop({ status: "failed" });
        throw describeDatabaseFailure(error);
      }
    },
    { parse: "json" },
  );
}
