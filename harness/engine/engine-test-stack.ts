import type { Sql } from "postgres";
import {
  type EngineDatabase,
  migrateEngine,
  openEngineDatabase,
} from "../../lib/billing/engine/engine-database.ts";
import { openReportingSource } from "../../lib/billing/engine/reporting-source.ts";
import { type FreshDatabase, freshDatabase } from "../reporting/fresh-database.ts";
import { type ReportingTestDatabase, reportingTestDatabase } from "../reporting/reporting-database.ts";

/** A reporting database and an engine database, migrated, for one test file. */
export interface EngineTestStack {
  reportingDb: ReportingTestDatabase;
  engineUrl: string;
  engine: EngineDatabase;
  reporting: Sql;
  dispose(): Promise<void>;
}

export async function engineTestStack(): Promise<EngineTestStack> {
  const reportingDb = await reportingTestDatabase();
  const fresh: FreshDatabase = await freshDatabase();
  await migrateEngine(fresh.url);
  const engine = openEngineDatabase(fresh.url);
  const reporting = openReportingSource(reportingDb.url);
  return {
    reportingDb,
    engineUrl: fresh.url,
    engine,
    reporting,
    async dispose() {
      await reporting.end({ timeout: 5 });
      await engine.close();
      await fresh.drop();
      await reportingDb.dispose();
    },
  };
}
