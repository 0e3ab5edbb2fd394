import { DrizzleQueryError } from "drizzle-orm/errors";
import postgres from "postgres";

/**
 * One line for a command that failed on a database, for the programs that work on one directly
 * (reporting-admin, engine): a refusal by the server gives its code and PostgreSQL's own message, a
 * connection that failed its code; neither ever holds the URL, so no secret reaches the line.
 */
export function describeDatabaseFailure(error: unknown): string {
  if (!(error instanceof Error)) return "failed";
  // drizzle wraps driver errors with the query text; the driver's error is the one to describe.
  if (error instanceof DrizzleQueryError && error.cause instanceof Error) {
    return describeDatabaseFailure(error.cause);
  }
  const code = "code" in error ? String(error.code) : undefined;
  if (error instanceof postgres.PostgresError) return `the database refused: ${error.message} (${code})`;
  if (code !== undefined) return `cannot reach the database (${code})`;
  return `failed: ${error.name}`;
}
