import type { TObject, TSchema } from "@sinclair/typebox";
import { ingestEvents } from "../routes/ingest-route.ts";
import { listEventsOperation, listRejectedOperation, listResourcesOperation } from "../routes/list-routes.ts";
import {
  createProjectOperation,
  getProjectOperation,
  listProjectsOperation,
} from "../routes/project-routes.ts";
import { rebuildProjectionOperation } from "../routes/rebuild-route.ts";
import {
  createRelationOperation,
  listRelationsOperation,
  updateRelationOperation,
} from "../routes/relation-routes.ts";
import { listResourceTypes } from "../routes/resource-types-route.ts";
import {
  eventStatsOperation,
  projectSummaryOperation,
  resourceHistoryOperation,
  resourceStatsOperation,
} from "../routes/summary-routes.ts";
import { syncCloudOperation } from "../routes/sync-route.ts";
import { openApiDocument } from "./openapi-document.ts";
import { type Operation, operation } from "./operation.ts";
import { PricingAdjustmentSchema } from "./project-schemas.ts";

const probe = (path: string, summary: string) =>
  operation({
    method: "GET",
    path,
    operationId: path === "/healthz" ? "liveness" : "readiness",
    tag: "probes",
    summary,
    security: "none",
    success: { 200: { description: "text/plain", text: "text/plain" } },
    errors: [503],
  });

const metrics = operation({
  method: "GET",
  path: "/metrics",
  operationId: "metrics",
  tag: "probes",
  summary: "Prometheus text exposition: the svc_ series, runtime and process collectors",
  security: "none",
  success: { 200: { description: "text exposition", text: "text/plain" } },
  errors: [404],
});

/** Every operation of the reporting server, in the order the document lists them. */
export const reportingOperations: readonly Operation<TObject, TObject, TSchema>[] = [
  probe("/healthz", "Liveness: fails once unhealthiness lasted longer than the threshold"),
  probe("/readyz", "Readiness: fails while the database is unreachable"),
  metrics,
  listEventsOperation,
  ingestEvents,
  listRejectedOperation,
  listResourcesOperation,
  resourceHistoryOperation,
  listResourceTypes,
  resourceStatsOperation,
  eventStatsOperation,
  listProjectsOperation,
  createProjectOperation,
  getProjectOperation,
  projectSummaryOperation,
  listRelationsOperation,
  createRelationOperation,
  updateRelationOperation,
  rebuildProjectionOperation,
  syncCloudOperation,
] as unknown as Operation<TObject, TObject, TSchema>[];

export const reportingSpecPath = "/api/v1/openapi.json";
export const reportingDocsPath = "/api/v1/docs";

/** The served contract, generated from the operations' own schemas. */
export function reportingDocument() {
  return openApiDocument(
    {
      title: "svc Reporting API",
      version: "1",
      description:
        "Event history, projection, project registry and relations, statistics. Errors are RFC 9457 problem documents (application/problem+json); clients branch on `type`; a validation problem names each member in `errors` with what it accepts. Clients use the deployment's base address. A date-time is RFC 3339 with an offset from -23:59 to +23:59, at most 9 digits of fraction (truncated to the millisecond), in the years 0001 to 9999 once the offset is applied; it is stored and answered as its UTC instant. No string or member name may hold U+0000 or a lone UTF-16 surrogate. A JSON body is UTF-8 and nests at most 64 levels (an event batch 512, each event's payload 32).",
    },
    reportingOperations,
    [PricingAdjustmentSchema],
  );
}
