/**
 * `/api/v1/snapshots`: take, list, read, export, import, diff, load, unload, delete. Reading is
 * open; taking, importing, deleting, loading and unloading need the write token (decision 362).
 */
import { Elysia } from "elysia";
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isJsonObject } from "../../../foundation/json/is-json-object.ts";
import { jsonResponse } from "../table-json.ts";
import type { Guard } from "../write/write-token.ts";
import { snapshotDocs } from "./snapshot-shapes.ts";
import type { Snapshots } from "./snapshots.ts";

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
        detail: snapshotDocs.take,
      },
    )
    .get("/api/v1/snapshots", () => snapshots.list(), {
      detail: snapshotDocs.list,
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
        detail: snapshotDocs.diff,
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
        detail: snapshotDocs.import,
      },
    )
    .get("/api/v1/snapshots/:id", ({ params }) => snapshots.get(params.id), {
      detail: snapshotDocs.get,
    })
    .get(
      "/api/v1/snapshots/:id/rows",
      ({ params, query }) => {
        const q = query as Record<string, unknown>;
        return snapshots.rows(params.id, stringQuery(q, "database"), stringQuery(q, "table"));
      },
      {
        detail: snapshotDocs.rows,
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
        detail: snapshotDocs.export,
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
        detail: snapshotDocs.delete,
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
        detail: snapshotDocs.load,
      },
    )
    .post(
      "/api/v1/snapshots/:id/unload",
      (context) => {
        guard(context);
        return snapshots.unload(context.params.id);
      },
      {
        detail: snapshotDocs.unload,
      },
    );
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}
