import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres, { type Sql } from "postgres";

interface MigrateFolderOptions<T> {
  /** Folder of the SQL files and their drizzle journal (`drizzle/<database>`). */
  folder: string;
  /** Any fixed key: the same for every `migrate` against one database. */
  lockKey: number;
  /** More work under the same lock once the schema is current (reporting creates partitions). */
  after?: (sql: Sql) => Promise<T>;
}

/**
 * Brings a database's schema up to date from a folder of migrations (decision 100). drizzle's
 * migrate() takes no lock, so two concurrent runs would both apply one migration: a session-level
 * advisory lock is held on a one-connection pool, so the lock and the migration share one session,
 * and the second run waits, then finds nothing left to do. Returns how many migrations it applied.
 */
export async function migrateFolder<T>(
  url: string,
  options: MigrateFolderOptions<T>,
): Promise<{ applied: number; after: T | undefined }> {
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { TimeZone: "UTC" },
  });
  try {
    await sql`select pg_advisory_lock(${options.lockKey})`;
    try {
      const before = await countApplied(sql);
      await migrate(drizzle(sql), { migrationsFolder: options.folder });
      const applied = (await countApplied(sql)) - before;
      return { applied, after: options.after ? await options.after(sql) : undefined };
    } finally {
      await sql`select pg_advisory_unlock(${options.lockKey})`;
    }
  } finally {
    await sql.end({ timeout: 5 });
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
