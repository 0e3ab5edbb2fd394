import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { Sql, TransactionSql } from "postgres";

/**
 * A drizzle handle on a postgres.js pool, or on one of its transactions or reserved connections, so
 * that typed queries run inside the caller's transaction. drizzle sets the client's parsing of
 * timestamps to text and its JSON serializing to pass-through, and only a pool carries those settings
 * (`options`): a transaction's handle is given a stand-in to set, and runs with its pool's, which the
 * pool's own handle set when it was opened.
 */
export function drizzleHandle<S extends Record<string, unknown>>(
  sql: Sql | TransactionSql,
  schema: S,
): PostgresJsDatabase<S> {
  if ("options" in sql) return drizzle(sql, { schema });
  const standIn = { options: { parsers: {}, serializers: {} }, unsafe: sql.unsafe.bind(sql) };
  return drizzle(standIn as unknown as Sql, { schema });
}
