import postgres, { type Sql } from "postgres";
import { migrateFolder } from "../../foundation/postgres/migrate-folder.ts";
import { shippedPath } from "../../foundation/process/shipped-path.ts";
import { engineDb } from "./store/engine-db.ts";

export interface EngineDatabase {
  sql: Sql;
  close(): Promise<void>;
}

/**
 * A pool on the engine database in a UTC session; the store (`store/`) reads and writes it through
 * `engine-schema.ts`, and drizzle leaves timestamps as PostgreSQL's text (see `store/engine-db.ts`).
 */
export function openEngineDatabase(url: string, options: { max?: number } = {}): EngineDatabase {
  const sql = postgres(url, {
    max: options.max ?? 4,
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    connect_timeout: 5,
    onnotice: () => {},
    connection: { TimeZone: "UTC" },
  });
  // The store's handle sets the pool's timestamp parsing once (text, as drizzle reads it), so every
  // query sees the same whichever ran first.
  engineDb(sql);
  return { sql, close: () => sql.end({ timeout: 5 }) };
}

export const engineMigrationsFolder = shippedPath("drizzle/engine");

/** Brings the engine schema up to date (safe to run twice at once); returns how many migrations applied. */
export async function migrateEngine(url: string): Promise<number> {
  const { applied } = await migrateFolder(url, { folder: engineMigrationsFolder, lockKey: 7_310_400 });
  return applied;
}
