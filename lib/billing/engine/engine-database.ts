import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres, { type Sql } from "postgres";
import { migrateFolder } from "../../foundation/postgres/migrate-folder.ts";
import { shippedPath } from "../../foundation/process/shipped-path.ts";
import * as schema from "./engine-schema.ts";

export type EngineDb = PostgresJsDatabase<typeof schema>;

export interface EngineDatabase {
  sql: Sql;
  db: EngineDb;
  close(): Promise<void>;
}

/** A pool on the engine database; timestamps come back as text in UTC (see lib/billing/reporting/database.ts). */
export function openEngineDatabase(url: string, options: { max?: number } = {}): EngineDatabase {
  const sql = postgres(url, {
    max: options.max ?? 4,
    idle_timeout: 30,
    max_lifetime: 60 * 30,
    connect_timeout: 5,
    onnotice: () => {},
    connection: { TimeZone: "UTC" },
  });
  return { sql, db: drizzle(sql, { schema }), close: () => sql.end({ timeout: 5 }) };
}

export const engineMigrationsFolder = shippedPath("drizzle/engine");

/** Brings the engine schema up to date (safe to run twice at once); returns how many migrations applied. */
export async function migrateEngine(url: string): Promise<number> {
  const { applied } = await migrateFolder(url, { folder: engineMigrationsFolder, lockKey: 7_310_400 });
  return applied;
}
