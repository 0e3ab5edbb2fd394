import { migrateFolder } from "../../foundation/postgres/migrate-folder.ts";
import { shippedPath } from "../../foundation/process/shipped-path.ts";
import { ensureEventPartitionsAhead } from "./event-partitions.ts";

export const reportingMigrationsFolder = shippedPath("drizzle/reporting");

/** Any fixed key: it only has to be the same for every `migrate` against one database. */
const migrationLockKey = 7_310_001;

interface MigrateResult {
  applied: number;
  partitions: string[];
}

/**
 * Brings the reporting schema up to date under the migration lock (lib/foundation/postgres/migrate-folder.ts);
 * partitions for the coming months are created after the schema is current, under the same lock.
 */
export async function migrateReporting(url: string, now: Date = new Date()): Promise<MigrateResult> {
  const { applied, after } = await migrateFolder(url, {
    folder: reportingMigrationsFolder,
    lockKey: migrationLockKey,
    after: (sql) => ensureEventPartitionsAhead(sql, now),
  });
  return { applied, partitions: after ?? [] };
}
