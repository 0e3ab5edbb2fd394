import { join } from "node:path";

/** How many migrations a fresh database gets from `folder`: its journal's entries (tests need not change per file). */
export async function migrationCount(folder: string): Promise<number> {
  const journal = (await Bun.file(join(folder, "meta", "_journal.json")).json()) as { entries: unknown[] };
  return journal.entries.length;
}
