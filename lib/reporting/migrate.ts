import { fileURLToPath } from "node:url";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import type { Sql } from "postgres";
import { openDatabase } from "./database.ts";
import { ensureEventPartitionsAhead } from "./event-partitions.ts";

export const reportingMigrationsFolder = fileURLToPath(new URL("../../drizzle/reporting", import.meta.url));

/** Any fixed key: it only has to be the same for every `migrate` against one database. */
const migrationLockKey = 7_310_001;

export interface MigrateResult {
  applied: number;
  partitions: string[];
}

/**
 * Brings the reporting schema up to date. drizzle's migrate() takes no lock, so two concurrent runs
 * would both apply the same migration: the session-level advisory lock is held on a one-connection
 * pool, so the lock and the migration share one session, and the second run waits, then finds
 * nothing left to do. Partitions for the coming months are created after the schema is current.
 */
export async function migrateReporting(url: string, now: Date = new Date()): Promise<MigrateResult> {
  const database = openDatabase(url, { max: 1 });
  const { sql, db } = database;
  try {
    await sql`select pg_advisory_lock(${migrationLockKey})`;
    try {
      const before = await countApplied(database.sql);
      await migrate(db, { migrationsFolder: reportingMigrationsFolder });
      const after = await countApplied(database.sql);
      const partitions = await ensureEventPartitionsAhead(sql, now);
      return { applied: after - before, partitions };
    } finally {
      await sql`select pg_advisory_unlock(${migrationLockKey})`;
    }
  } finally {
    await database.close();
  }
}

async function countApplied(sql: Sql): Promise<number> {
  const [table] = await sql<
    { name: string | null }[]
  >`select to_regclass('drizzle.__drizzle_migrations')::text as name`;
  if (!table?.name) return 0;
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
  return row?.n ?? 0;
}
