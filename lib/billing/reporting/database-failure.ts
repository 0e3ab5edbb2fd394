import { DrizzleQueryError } from "drizzle-orm/errors";
import postgres from "postgres";
import { SvcError, UnavailableError } from "../../foundation/errors/svc-error.ts";

/** Socket-level codes postgres.js reports when the database cannot be reached at all. */
const unreachable = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "EPIPE",
]);

/**
 * A database failure as the caller should see it: unreachable (connection refused or lost, server
 * shutting down, too many connections) is 503 `unavailable`, which a client may retry; so is a write
 * that reached a server no longer primary (25006), which a failover causes for a moment (decision
 * 143); anything else stays as it is and becomes 500. Domain errors pass through; a query drizzle ran
 * is judged by the driver's error it wraps.
 */
export function describeDatabaseFailure(error: unknown): unknown {
  if (error instanceof SvcError) return error;
  if (error instanceof DrizzleQueryError && error.cause instanceof Error) {
    const described = describeDatabaseFailure(error.cause);
    return described === error.cause ? error : described;
  }
  if (error instanceof postgres.PostgresError) {
    // Class 08 (connection exception), 57P0x (shutdown), 53300 (too many connections), 25006 (a
    // read-only transaction: the server was demoted under the session).
    if (
      error.code.startsWith("08") ||
      error.code.startsWith("57P") ||
      error.code === "53300" ||
      error.code === "25006"
    ) {
      return new UnavailableError("the database is unavailable", { cause: error });
    }
    return error;
  }
  if (error instanceof Error && "code" in error && unreachable.has(String(error.code))) {
    return new UnavailableError("the database is unavailable", { cause: error });
  }
  return error;
}
