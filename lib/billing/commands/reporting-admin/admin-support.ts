/** What the admin CLI's commands share: the database they work on and how its failures read. */
import { UsageError } from "../../../foundation/cli/usage-error.ts";
import { postgresUrl, secret } from "../../../foundation/config/fields.ts";
import { statusOf } from "../../../foundation/errors/error-code.ts";
import { SvcError } from "../../../foundation/errors/svc-error.ts";
import { describeDatabaseFailure } from "../../../foundation/postgres/database-failure.ts";
import { openDatabase, type ReportingDb } from "../../reporting/database.ts";

/** Who the audit log names for what the admin CLI does. */
export const actor = "reporting-admin";

/** The only setting: the admin CLI works on the database directly. */
export const adminSettings = {
  dbUrl: secret("SVC_REPORTING_DB_URL", { required: true }, { url: postgresUrl }),
};

export async function withDb<T>(url: string, work: (db: ReportingDb) => Promise<T>): Promise<T> {
  const database = openDatabase(url, { max: 1 });
  try {
    return await work(database.db);
  } finally {
    await database.close();
  }
}

/**
 * A store's refusal of the caller's input (a bad role, an unknown id) is a UsageError here; any other
 * failure becomes one line that names no secret (`describeDatabaseFailure`).
 */
export async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SvcError && statusOf(error.code) < 500)
      throw new UsageError(error.message, { cause: error });
    throw new Error(describeDatabaseFailure(error), { cause: error });
  }
}

/** One JSON document per line, so that scripts read the output. */
export const jsonLine = (value: unknown) => `${JSON.stringify(value)}\n`;
