/**
 * The filter of `GET /api/v1/events` and of the WebSocket stream, read from query parameters. Every
 * bad parameter is named in one 400 (validation), never a 500. Lists are comma-separated and a
 * parameter may repeat (`table=A&table=B` is `table=A,B`).
 */
import { ValidationError } from "../../../foundation/errors/svc-error.ts";
import { canonicalInstant } from "../../../foundation/time/instant.ts";
import type { ChangeEvent, FeedDatabase } from "./change-event.ts";
import { feedDatabases } from "./change-event.ts";

export interface EventFilter {
  clusters?: string[];
  databases?: FeedDatabase[];
  tables?: string[];
  ops?: ChangeEvent["op"][];
  uuids?: string[];
  /** Exclusive lower bound on seq: events after it, oldest first. */
  since?: number;
  /** Exclusive upper bound on seq. */
  before?: number;
  /** Inclusive lower bound on `at` (canonical instant). */
  from?: string;
  /** Exclusive upper bound on `at`. */
  to?: string;
  limit: number;
}

export const eventLimit = { default: 100, max: 1000 } as const;

export type QueryValues = Record<string, string | string[] | undefined>;

const ops = ["insert", "update", "delete"] as const;
const tableName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const uuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function listOf(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(","));
  const list = parts.map((p) => p.trim()).filter((p) => p !== "");
  return list.length === 0 ? undefined : [...new Set(list)];
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** The parameters of the events route, the filter's default. */
export const eventFilterParameters = [
  "cluster",
  "database",
  "table",
  "op",
  "uuid",
  "since",
  "before",
  "from",
  "to",
  "limit",
] as const;

/**
 * Reads the filter; `clusters` are the configured names (another is refused), `parameters` the
 * names this caller accepts (others are refused, so a misspelt filter does not silently match all).
 */
export function parseEventFilter(
  query: QueryValues,
  options: { clusters: readonly string[]; parameters?: readonly string[] },
): EventFilter {
  const problems: string[] = [];
  const known = options.parameters ?? eventFilterParameters;
  for (const name of Object.keys(query)) {
    if (!known.includes(name)) problems.push(`${name}: not a parameter here (${known.join(", ")})`);
  }
  const filter: EventFilter = { limit: eventLimit.default };
  const members = <T extends string>(
    name: string,
    allowed: readonly T[] | ((v: string) => boolean),
    what: string,
  ) => {
    const values = listOf(query[name]);
    if (values === undefined) return undefined;
    const ok = (v: string) =>
      typeof allowed === "function" ? allowed(v) : (allowed as readonly string[]).includes(v);
    const bad = values.filter((v) => !ok(v));
    if (bad.length > 0) problems.push(`${name}: ${bad.map((v) => JSON.stringify(v)).join(", ")} ${what}`);
    return bad.length > 0 ? undefined : (values as T[]);
  };
  const clusters = members(
    "cluster",
    options.clusters,
    `not a configured cluster (${options.clusters.join(", ")})`,
  );
  const databases = members("database", feedDatabases, "not a database (nb, sb)");
  const tables = members("table", (v) => tableName.test(v), "not a table name");
  const opList = members("op", ops, "not an operation (insert, update, delete)");
  const uuids = members("uuid", (v) => uuidText.test(v), "not a uuid");
  if (clusters) filter.clusters = clusters;
  if (databases) filter.databases = databases;
  if (tables) filter.tables = tables;
  if (opList) filter.ops = opList;
  if (uuids) filter.uuids = uuids;
  const integer = (name: string, min: number, max: number): number | undefined => {
    const text = single(query[name]);
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name}: takes an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
      return undefined;
    }
    return value;
  };
  const since = integer("since", 0, Number.MAX_SAFE_INTEGER);
  const before = integer("before", 1, Number.MAX_SAFE_INTEGER);
  const limit = integer("limit", 1, eventLimit.max);
  if (since !== undefined) filter.since = since;
  if (before !== undefined) filter.before = before;
  if (limit !== undefined) filter.limit = limit;
  const instant = (name: string): string | undefined => {
    const text = single(query[name]);
    if (text === undefined) return undefined;
    try {
      return canonicalInstant(text);
    } catch {
      problems.push(`${name}: takes an RFC 3339 date-time with offset, got ${JSON.stringify(text)}`);
      return undefined;
    }
  };
  const from = instant("from");
  const to = instant("to");
  if (from !== undefined) filter.from = from;
  if (to !== undefined) filter.to = to;
  if (problems.length > 0) throw new ValidationError(`invalid query: ${problems.join("; ")}`);
  return filter;
}

/** Whether a live event passes the filter's member lists (seq and time bounds are the store's). */
export function matchesFilter(filter: EventFilter, event: ChangeEvent): boolean {
  return (
    (filter.clusters === undefined || filter.clusters.includes(event.cluster)) &&
    (filter.databases === undefined || filter.databases.includes(event.database)) &&
    (filter.tables === undefined || filter.tables.includes(event.table)) &&
    (filter.ops === undefined || filter.ops.includes(event.op)) &&
    (filter.uuids === undefined || filter.uuids.includes(event.uuid))
  );
}
