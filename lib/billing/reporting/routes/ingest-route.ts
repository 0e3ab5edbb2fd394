import { Type } from "@sinclair/typebox";
import { Elysia } from "elysia";
import pLimit from "p-limit";
import type { Sql } from "postgres";
import { PayloadTooLargeError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import { readJsonBody } from "../../../foundation/http/json-body.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { EventSchema, IngestResultSchema } from "../contract/event-schemas.ts";
import { operation } from "../contract/operation.ts";
import { describeDatabaseFailure } from "../database-failure.ts";
import type { EventPartitions } from "../event-partitions.ts";
import { ingestItems, maxBatchItems } from "../ingest/ingest-batch.ts";
import type { ReportingMetrics } from "../server/reporting-metrics.ts";

/** Items are checked one by one and answered in the IngestResult, so the route reads its own body. */
export const ingestEvents = operation({
  method: "POST",
  path: "/api/v1/events",
  operationId: "ingestEvents",
  tag: "events",
  summary: "Store one event or a batch of at most 1000",
  description:
    "A batch lands whole or not at all. A duplicate (event_id, timestamp) is counted and not stored again; a refused item is reported in rejected with its index and kept in the dead letter; an item outside the credential's (platform, cloud) is audited. 200 whenever the request was authorized and readable.",
  security: "ingest",
  body: Type.Union([EventSchema, Type.Array(EventSchema, { maxItems: maxBatchItems })]),
  bodyCheckedByHandler: true,
  success: { 200: { description: "IngestResult", schema: IngestResultSchema } },
  errors: [413],
});

interface IngestRouteDeps {
  auth: Authenticator;
  sql: Sql;
  partitions: EventPartitions;
  metrics: ReportingMetrics;
  requireSizeSchema: boolean;
}

/**
 * Batches stored at once. Each holds one advisory lock per resource it touches (up to 1000), and
 * PostgreSQL's shared lock table holds max_locks_per_transaction x max_connections entries (6400 by
 * default): four batches stay well inside it, and on two cores more would only queue in the database.
 */
const concurrentBatches = 4;

/**
 * How deeply a body may nest before it is refused whole (400, nothing stored): far beyond what an event
 * may hold (`payloadMaxDepth`), so a too-deep item among good ones is refused alone and dead-lettered,
 * while its raw body is still shallow enough to serialize (decision 118).
 */
export const bodyMaxDepth = 512;

/**
 * Bytes a batch may hold (413 beyond, nothing stored): a thousand events of the 64 KiB the collector
 * sends at most (docs/reporting-api.md#limits). The collector halves its batch on a 413.
 */
const bodyMaxBytes = 64 * 1024 * 1024;

/**
 * `POST /api/v1/events` (credential ingestToken): one event or an array of at most 1000. Answers 200
 * with the IngestResult whenever the request was authorized and readable, whatever the items did; an
 * array above the limit is 413 before anything is read or stored.
 */
export function ingestRoute(deps: IngestRouteDeps) {
  // p-limit runs the waiting batches in arrival order (decision 19).
  const batches = pLimit(concurrentBatches);
  return new Elysia({ name: "reporting-ingest" }).post(
    "/api/v1/events",
    async ({ request, set }) => {
      const principal = await deps.auth.ingest(request);
      const body = await readJsonBody(request, { maxBytes: bodyMaxBytes, maxDepth: bodyMaxDepth });
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
        const outcome = await batches(() =>
          ingestItems({ sql: deps.sql, partitions: deps.partitions }, items, {
            principal,
            pipeline: "collector",
            requireSizeSchema: deps.requireSizeSchema,
            single,
            ...(typeof requestId === "string" ? { requestId } : {}),
          }),
        );
        stop({ status: "stored" });
        deps.metrics.recordIngest(outcome);
        return outcome.result;
      } catch (error) {
        stop({ status: "failed" });
        throw describeDatabaseFailure(error);
      }
    },
    // The body is read after the credential, so a caller without one learns nothing from its refusals.
    { parse: "none" },
  );
}
