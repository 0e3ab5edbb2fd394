import { afterAll, beforeAll } from "bun:test";
import { type Database, openDatabase } from "../../lib/billing/reporting/database.ts";
import { EventPartitions } from "../../lib/billing/reporting/event-partitions.ts";
import { migrateReporting } from "../../lib/billing/reporting/migrate.ts";
import { type FreshDatabase, freshDatabase } from "./fresh-database.ts";

export interface ReportingTestDatabase extends Database {
  url: string;
  partitions: EventPartitions;
  /** Empties every table the tests write, keeping the schema and the seeded size schemas. */
  reset(): Promise<void>;
  dispose(): Promise<void>;
}

/** A fresh database with the reporting schema migrated, for one test file. */
export async function reportingTestDatabase(max = 4): Promise<ReportingTestDatabase> {
  const fresh: FreshDatabase = await freshDatabase();
  await migrateReporting(fresh.url);
  const database = openDatabase(fresh.url, { max });
  return {
    ...database,
    url: fresh.url,
    partitions: new EventPartitions(database.sql),
    async reset() {
      await database.sql`truncate events, rejected_events, current_resources, audit_log, size_names, sync_runs,
        ingest_credentials, api_tokens, project_relations, projects cascade`;
    },
    async dispose() {
      await database.close();
      await fresh.drop();
    },
  };
}

/**
 * The reporting database of a test file: made before its tests and dropped after them, by bun:test
 * hooks the call registers (hooks registered after it run after it, so they may use it). What most
 * reporting tests begin with, written once; `max` bounds its pool as `reportingTestDatabase` does.
 */
export function reportingDatabaseOfFile(max?: number): ReportingTestDatabase {
  const db = {} as ReportingTestDatabase;
  beforeAll(async () => {
    Object.assign(db, await reportingTestDatabase(max));
  });
  afterAll(async () => {
    // Absent when the database could not be made: there is nothing to drop.
    if ("dispose" in db) await db.dispose();
  });
  return db;
}
