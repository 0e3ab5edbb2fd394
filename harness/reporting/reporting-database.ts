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
