import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres, { type Sql } from "postgres";
import * as schema from "./schema.ts";

export type ReportingDb = PostgresJsDatabase<typeof schema>;

export interface Database {
  sql: Sql;
  db: ReportingDb;
  close(): Promise<void>;
}

interface DatabaseOptions {
  max?: number;
  /** Seconds to wait for a connection; short so that probes answer while the database is down. */
  connectTimeout?: number;
  onNotice?: (notice: postgres.Notice) => void;
}

/**
 * A postgres.js pool with drizzle on top. postgres.js connects lazily, on the first query, which is what
 * lets the server start while the database is down. Idle and lifetime bounds recycle connections that a
 * database restart left dead.
 */
export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  const sql = postgres(url, {
    max: options.max ?? 10,
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    connect_timeout: options.connectTimeout ?? 5,
    onnotice: options.onNotice ?? (() => {}),
    // Timestamps come back as text in UTC (drizzle makes the parsers transparent); see pgInstant().
    // The process's own name lets ingest find its lost transactions (decision 151).
    connection: { TimeZone: "UTC", application_name: `svc-reporting-${process.pid}` },
  });
  const db = drizzle(sql, { schema });
  return { sql, db, close: () => sql.end({ timeout: 5 }) };
}

/** A UTC `timestamptz` as text or JSON writes it: `2026-11-21 10:00:00.5+00`, `2026-11-21T10:00:00+00:00`. */
const utcText = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,3})\d*)?\+00(?::00)?$/;

/**
 * A `timestamptz` as PostgreSQL writes it in a UTC session (`2026-11-21 10:00:00.5+00`, or in JSON
 * `2026-11-21T10:00:00.5+00:00`) to a canonical instant. drizzle turns postgres.js's date parsing off
 * for every client it wraps, so rows carry text. The UTC forms are rewritten without a Date: ingest reads
 * thousands of them per batch.
 */
export function pgInstant(text: string): string {
  const utc = utcText.exec(text);
  if (utc) return `${utc[1]}T${utc[2]}.${(utc[3] ?? "").padEnd(3, "0")}Z`;
  return new Date(text.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00")).toISOString();
}
