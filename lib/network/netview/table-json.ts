/**
 * Table reads for the API: rows of one table as a JSON body, memoised per cache version, so that a
 * list of 40,000 logical flows is serialised once per change rather than once per request. Rows are
 * immutable in the cache, so the memo is exact.
 */
import { NotFoundError, UnavailableError } from "../../foundation/errors/svc-error.ts";
import type { DatabaseCache } from "../ovsdb/database-cache.ts";
import type { Row } from "../ovsdb/datum.ts";

const memo = new WeakMap<DatabaseCache, Map<string, { version: number; json: string }>>();

/** Refuses a read the cache cannot answer: never synced (503), or a table the schema lacks (404). */
export function checkTable(cache: DatabaseCache, label: string, table: string): void {
  const schema = cache.schema;
  if (schema === undefined) throw new UnavailableError(`${label} database not synced yet`);
  if (schema.tables[table] === undefined) {
    throw new NotFoundError(
      `table ${table} is not in this ${label} schema (${schema.name} ${schema.version})`,
    );
  }
}

export function tableListJson(cache: DatabaseCache, label: string, table: string): string {
  checkTable(cache, label, table);
  let perTable = memo.get(cache);
  if (perTable === undefined) {
    perTable = new Map();
    memo.set(cache, perTable);
  }
  const hit = perTable.get(table);
  if (hit !== undefined && hit.version === cache.version) return hit.json;
  const json = JSON.stringify(cache.rows(table));
  perTable.set(table, { version: cache.version, json });
  return json;
}

export function tableRow(cache: DatabaseCache, label: string, table: string, uuid: string): Row {
  checkTable(cache, label, table);
  const row = cache.get(table, uuid);
  if (row === undefined) throw new NotFoundError("not found");
  return row;
}

export function jsonResponse(json: string, status = 200): Response {
  return new Response(json, { status, headers: { "content-type": "application/json" } });
}
