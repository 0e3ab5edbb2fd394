import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { Sql, TransactionSql } from "postgres";
import { drizzleHandle } from "../../../foundation/postgres/drizzle-handle.ts";
import * as schema from "./engine-schema.ts";

/** The store's typed handle: queries written against `engine-schema.ts`, rows typed from it. */
export type EngineDb = PostgresJsDatabase<typeof schema>;

/**
 * The typed handle on the engine's pool or on one of its transactions (a run's rows commit with the
 * run). Timestamps are PostgreSQL's text: the store reads them through `canonicalInstant` where an
 * instant leaves it.
 */
export function engineDb(sql: Sql | TransactionSql): EngineDb {
  return drizzleHandle(sql, schema);
}
