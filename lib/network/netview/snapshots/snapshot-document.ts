/**
 * A snapshot of one cluster's NB and SB caches as a document: what `export` writes and `import`
 * reads (docs/netview.md "Snapshots"), and what the store keeps. Rows follow docs/ovsdb-json.md.
 */

import { compare } from "../../../foundation/collections/compare.ts";
import { ConflictError, UnavailableError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import { isJsonObject } from "../../../foundation/json/is-json-object.ts";
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { Row } from "../../ovsdb/datum.ts";
import { type Cluster, isStale } from "../cluster.ts";
import type { FeedDatabase } from "../history/change-event.ts";
import { unstorableText } from "../write/write-operations.ts";

const snapshotFormat = "netview-snapshot";
const snapshotVersion = 1;

export interface SchemaName {
  name: string;
  version: string;
}

export interface DatabaseSnapshot {
  schema: SchemaName;
  tables: Record<string, Row[]>;
}

export interface SnapshotDocument {
  format: typeof snapshotFormat;
  version: typeof snapshotVersion;
  id: string;
  label: string;
  cluster: string;
  created_at: string;
  /** Taken while a cache was not authoritative (netview reconnecting): the last rows it had. */
  stale: boolean;
  databases: Record<FeedDatabase, DatabaseSnapshot>;
}

/** Every row of a synced cache, table by table (tables sorted, rows by uuid). */
export function cacheRows(cache: DatabaseCache): DatabaseSnapshot {
  const schema = cache.schema;
  if (schema === undefined) throw new Error(`${cache.database}: not synced`);
  const tables: Record<string, Row[]> = {};
  for (const name of Object.keys(schema.tables).sort()) {
    tables[name] = cache.rows(name).sort((a, b) => compare(a._uuid, b._uuid));
  }
  return { schema: { name: schema.name, version: schema.version }, tables };
}

/** A snapshot of a cluster's caches as they are now; refused while a snapshot is loaded on it. */
export function captureCluster(
  cluster: Cluster,
  what: { id: string; label: string; at: string },
): SnapshotDocument {
  if (cluster.suspended) {
    throw new ConflictError(`cluster ${cluster.name} answers from a loaded snapshot: unload it first`);
  }
  if (cluster.nb.cache.schema === undefined || cluster.sb.cache.schema === undefined) {
    throw new UnavailableError(`cluster ${cluster.name} has not been synced yet`);
  }
  return {
    format: snapshotFormat,
    version: snapshotVersion,
    id: what.id,
    label: what.label,
    cluster: cluster.name,
    created_at: what.at,
    stale: isStale(cluster),
    databases: { nb: cacheRows(cluster.nb.cache), sb: cacheRows(cluster.sb.cache) },
  };
}

export function rowCounts(snapshot: DatabaseSnapshot): Record<string, number> {
  return Object.fromEntries(Object.entries(snapshot.tables).map(([table, rows]) => [table, rows.length]));
}

const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const tableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const isAtom = (v: unknown) =>
  typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v));

function isColumnValue(value: unknown): boolean {
  if (value === null || isAtom(value)) return true;
  if (Array.isArray(value)) return value.every(isAtom);
  return isJsonObject(value) && Object.values(value).every(isAtom);
}

/** At most this many problems are named in one refusal; the rest are counted. */
const shownProblems = 10;

/**
 * Reads an exported document (import), checking its shape down to each value; refuses with one
 * 400 naming the first problems. Whether the rows fit a server's schema is checked on load.
 */
export function readSnapshotDocument(
  body: unknown,
): Omit<SnapshotDocument, "id"> & { id: string | undefined } {
  const problems: string[] = [];
  if (!isJsonObject(body)) throw new ValidationError("invalid snapshot: not a JSON object");
  // Its rows may be restored to the northbound database, which refuses such text by dropping the session.
  problems.push(...unstorableText(body));
  if (body.format !== snapshotFormat) problems.push(`format: must be "${snapshotFormat}"`);
  if (body.version !== snapshotVersion) problems.push(`version: must be ${snapshotVersion}`);
  const text = (name: string, required: boolean) => {
    const value = body[name];
    if (value === undefined && !required) return undefined;
    if (typeof value !== "string" || value.length > 200) {
      problems.push(`${name}: must be a string of at most 200 characters`);
      return undefined;
    }
    return value;
  };
  const id = text("id", false);
  const label = text("label", false) ?? "";
  const cluster = text("cluster", false) ?? "";
  const createdAt = text("created_at", false) ?? "";
  if (body.stale !== undefined && typeof body.stale !== "boolean") problems.push("stale: must be a boolean");
  const databases = {} as Record<FeedDatabase, DatabaseSnapshot>;
  const rawDatabases = body.databases;
  if (!isJsonObject(rawDatabases)) problems.push("databases: must be an object with nb and sb");
  for (const db of ["nb", "sb"] as const) {
    const raw = isJsonObject(rawDatabases) ? rawDatabases[db] : undefined;
    if (!isJsonObject(rawDatabases)) break;
    if (!isJsonObject(raw)) {
      problems.push(`databases.${db}: missing`);
      continue;
    }
    const schema = raw.schema;
    if (!isJsonObject(schema) || typeof schema.name !== "string" || typeof schema.version !== "string") {
      problems.push(`databases.${db}.schema: must be {"name": string, "version": string}`);
    }
    if (!isJsonObject(raw.tables)) {
      problems.push(`databases.${db}.tables: must be an object of row arrays`);
      continue;
    }
    const tables: Record<string, Row[]> = {};
    for (const [table, rows] of Object.entries(raw.tables)) {
      const where = `databases.${db}.tables.${table}`;
      if (!tableName.test(table)) problems.push(`${where}: not a table name`);
      if (!Array.isArray(rows)) {
        problems.push(`${where}: must be an array of rows`);
        continue;
      }
      const seen = new Set<string>();
      rows.forEach((row: unknown, i) => {
        if (!isJsonObject(row) || typeof row._uuid !== "string" || !uuidText.test(row._uuid)) {
          problems.push(`${where}[${i}]: must be a row with a lower-case _uuid`);
          return;
        }
        if (seen.has(row._uuid)) problems.push(`${where}[${i}]: _uuid ${row._uuid} repeats`);
        seen.add(row._uuid);
        for (const [column, value] of Object.entries(row)) {
          if (column !== "_uuid" && !isColumnValue(value))
            problems.push(`${where}[${i}].${column}: not a column value`);
        }
      });
      tables[table] = rows as Row[];
    }
    if (isJsonObject(schema) && typeof schema.name === "string" && typeof schema.version === "string") {
      databases[db] = { schema: { name: schema.name, version: schema.version }, tables };
    }
  }
  if (problems.length > 0) {
    const more = problems.length > shownProblems ? `; and ${problems.length - shownProblems} more` : "";
    throw new ValidationError(`invalid snapshot: ${problems.slice(0, shownProblems).join("; ")}${more}`);
  }
  return {
    format: snapshotFormat,
    version: snapshotVersion,
    id,
    label,
    cluster,
    created_at: createdAt,
    stale: body.stale === true,
    databases,
  };
}
