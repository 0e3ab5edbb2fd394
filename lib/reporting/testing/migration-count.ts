import { join } from "node:path";
import { reportingMigrationsFolder } from "../migrate.ts";

/** How many migrations a fresh database gets: the journal's entries (tests need not change per file). */
export async function reportingMigrationCount(): Promise<number> {
  const journal = (await Bun.file(join(reportingMigrationsFolder, "meta", "_journal.json")).json()) as {
    entries: unknown[];
  };
  return journal.entries.length;
}
