import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/**
 * An instant as PostgreSQL writes it for us: the canonical form (`2026-10-01T00:00:00.000Z`, UTC,
 * milliseconds) made by the database, so that a read needs no parsing. `expression` is SQL text (a
 * column, `now()`, `max(received_at)`).
 */
export function canonicalInstantSql(expression: string): string {
  return `to_char(${expression} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** The same for a drizzle column or expression; null stays null. */
export function canonicalInstant<T extends string | null = string>(column: SQLWrapper): SQL<T> {
  return sql<T>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
