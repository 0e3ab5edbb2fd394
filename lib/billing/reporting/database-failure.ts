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
 * shutting down, too many connections) is 503 `unavailable`, which a client may retry; anything else
 * stays as it is and becomes 500. Domain errors pass through.
 */
export function describeDatabaseFailure(error: unknown): unknown {
  if (error instanceof SvcError) return error;
  if (error instanceof postgres.PostgresError) {
    // Class 08 (connection exception), 57P0x (shutdown), 53300 (too many connections).
    if (error.code.startsWith("08") || error.code.startsWith("57P") || error.code === "53300") {
      return new UnavailableError("the database is unavailable", { cause: error });
    }
    return error;
  }
  if (error instanceof Error && "code" in error && unreachable.has(String(error.code))) {
    return new UnavailableError("the database is unavailable", { cause: error });
  }
  return error;
}
