/**
 * `/api/v1/snapshots`: take, list, read, export, import, diff, load, unload, delete. Reading is
 * open; taking, importing, deleting, loading and unloading need the write token (decision 362).
 */
import { Elysia } from "elysia";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isJsonObject } from "../../../foundation/json/is-json-object.ts";
import { needsWriteToken } from "../openapi-document.ts";
import { jsonBody, listOf, noContent, responses, rowSchema, tokenErrors } from "../openapi-shapes.ts";
import { openapiParameters } from "../query-params.ts";
import { jsonResponse } from "../table-json.ts";
import type { Guard } from "../write/write-token.ts";
import {
  diffParams,
  loadedSchema,
  loadParams,
  rowsParams,
  snapshotDiffSchema,
  snapshotDocumentSchema,
  snapshotListSchema,
  snapshotSchema,
  snapshotTakenSchema,
  takeSnapshotSchema,
  unloadedSchema,
} from "./snapshot-shapes.ts";
import type { Snapshots } from "./snapshots.ts";

const tags = ["snapshots"];

/** `{cluster?, label?}` of a new snapshot; an empty body takes the defaults. */
function takeOptions(body: unknown): { cluster?: string; label?: string } {
  if (body === undefined || body === null || body === "") return {};
  if (!isJsonObject(body))
    throw new ValidationError('invalid body: expected {"cluster"?: string, "label"?: string}');
  const problems: string[] = [];
  for (const key of Object.keys(body))
    if (key !== "cluster" && key !== "label") problems.push(`${key}: not a member`);
  const text = (key: "cluster" | "label") => {
    const value = body[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value.length > 200) {
      problems.push(`${key}: must be a string of at most 200 characters`);
      return undefined;
    }
    return value;
  };
  const cluster = text("cluster");
  const label = text("label");
  if (problems.length > 0) throw new ValidationError(`invalid body: ${problems.join("; ")}`);
  return { ...(cluster === undefined ? {} : { cluster }), ...(label === undefined ? {} : { label }) };
}

const stringQuery = (query: Record<string, unknown>, name: string): string | undefined => {
  const value = query[name];
  return typeof value === "string" ? value : undefined;
};

export function snapshotRoutes(snapshots: Snapshots, guard: Guard) {
  return new Elysia({ name: "netview-snapshots" })
    .post(
      "/api/v1/snapshots",
      (context) => {
        guard(context);
        context.set.status = 201;
        return snapshots.take(takeOptions(context.body));
      },
      {
        detail: {
          tags,
          summary: "Take a snapshot of a cluster's NB and SB caches",
          security: needsWriteToken,
          requestBody: jsonBody(takeSnapshotSchema, false),
          responses: responses(
            snapshotTakenSchema,
            {
              400: "invalid body",
              404: "unknown cluster",
              409: "a snapshot is loaded on the cluster",
              503: "the cluster has not been synced yet",
              ...tokenErrors,
            },
            { status: 201 },
          ),
        },
      },
    )
    .get("/api/v1/snapshots", () => snapshots.list(), {
      detail: { tags, summary: "Snapshots, newest first", responses: responses(snapshotListSchema) },
    })
    .get(
      "/api/v1/snapshots/diff",
      ({ query }) => {
        const q = query as Record<string, unknown>;
        return snapshots.diff({
          ...optional("from", stringQuery(q, "from")),
          ...optional("to", stringQuery(q, "to")),
          ...optional("cluster", stringQuery(q, "cluster")),
          ...optional("database", stringQuery(q, "database")),
          ...optional("table", stringQuery(q, "table")),
        });
      },
      {
        detail: {
          tags,
          summary: "What changed between two snapshots, or a snapshot and the live caches",
          parameters: openapiParameters(diffParams),
          responses: responses(snapshotDiffSchema, {
            400: "invalid parameters",
            404: "no such snapshot (or cluster)",
            409: "the live side's cluster answers from a loaded snapshot",
          }),
        },
      },
    )
    .post(
      "/api/v1/snapshots/import",
      (context) => {
        guard(context);
        context.set.status = 201;
        return snapshots.import(context.body);
      },
      {
        detail: {
          tags,
          summary: "Import an exported snapshot document (a new id is given)",
          security: needsWriteToken,
          requestBody: jsonBody(snapshotDocumentSchema),
          responses: responses(
            snapshotTakenSchema,
            { 400: "invalid snapshot: up to ten problems named", ...tokenErrors },
            { status: 201 },
          ),
        },
      },
    )
    .get("/api/v1/snapshots/:id", ({ params }) => snapshots.get(params.id), {
      detail: {
        tags,
        summary: "One snapshot: schemas, row counts per table, where it is loaded",
        responses: responses(snapshotSchema, { 404: "not found" }),
      },
    })
    .get(
      "/api/v1/snapshots/:id/rows",
      ({ params, query }) => {
        const q = query as Record<string, unknown>;
        return snapshots.rows(params.id, stringQuery(q, "database"), stringQuery(q, "table"));
      },
      {
        detail: {
          tags,
          summary: "Rows of one table of a snapshot",
          parameters: openapiParameters(rowsParams),
          responses: responses(listOf(rowSchema), {
            400: "invalid parameters",
            404: "no such snapshot, or table in it",
          }),
        },
      },
    )
    .get(
      "/api/v1/snapshots/:id/export",
      ({ params }) => {
        const document = snapshots.document(params.id);
        const response = jsonResponse(JSON.stringify(document));
        response.headers.set(
          "content-disposition",
          `attachment; filename="netview-snapshot-${document.id}.json"`,
        );
        return response;
      },
      {
        detail: {
          tags,
          summary: "The whole snapshot as a document that import reads (an attachment)",
          responses: responses(snapshotDocumentSchema, { 404: "not found" }),
        },
      },
    )
    .delete(
      "/api/v1/snapshots/:id",
      (context) => {
        guard(context);
        snapshots.delete(context.params.id);
        context.set.status = 204;
      },
      {
        detail: {
          tags,
          summary: "Delete a snapshot (not while it is loaded)",
          security: needsWriteToken,
          responses: noContent({ 404: "not found", 409: "the snapshot is loaded", ...tokenErrors }),
        },
      },
    )
    .post(
      "/api/v1/snapshots/:id/load",
      (context) => {
        guard(context);
        return snapshots.load(
          context.params.id,
          stringQuery(context.query as Record<string, unknown>, "cluster"),
        );
      },
      {
        detail: {
          tags,
          summary:
            "Answer from the snapshot: the cluster's live monitors are suspended, answers carry X-Netview-Stale and /readyz is 503 until unload",
          security: needsWriteToken,
          parameters: openapiParameters(loadParams),
          responses: responses(loadedSchema, {
            400: "the snapshot's cluster is not served here: name one",
            404: "no such snapshot (or cluster)",
            409: "a snapshot is loaded already, or the schemas differ",
            ...tokenErrors,
          }),
        },
      },
    )
    .post(
      "/api/v1/snapshots/:id/unload",
      (context) => {
        guard(context);
        return snapshots.unload(context.params.id);
      },
      {
        detail: {
          tags,
          summary: "Resume live monitoring of the cluster the snapshot is loaded on",
          security: needsWriteToken,
          responses: responses(unloadedSchema, {
            404: "not found",
            409: "the snapshot is not loaded",
            ...tokenErrors,
          }),
        },
      },
    );
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
