import { expect, test } from "bun:test";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import { openDatabase } from "../database.ts";
import { withSyncLock } from "./sync-lock.ts";

const db = reportingDatabaseOfFile();

test("one run per cloud across pools (processes), other clouds free, a dead run's row marked failed", async () => {
  const other = openDatabase(db.url, { max: 2 });
  try {
    await db.sql`insert into sync_runs (cloud, status, run_at) values ('c1', 'running', now())`;
    const held = Promise.withResolvers<void>();
    const taken = Promise.withResolvers<void>();
    const first = withSyncLock(db.sql, "c1", async () => {
      taken.resolve();
      await held.promise;
      return "first";
    });
    await taken.promise;
    await expect(withSyncLock(other.sql, "c1", async () => "second")).rejects.toThrow(
      "another sync of cloud c1 is running",
    );
    expect(await withSyncLock(other.sql, "c2", async () => "c2")).toBe("c2");
    held.resolve();
    expect(await first).toBe("first");
    expect(await withSyncLock(other.sql, "c1", async () => "again")).toBe("again");
    const rows = await db.sql`select status, error from sync_runs where cloud = 'c1'`;
    expect([...rows]).toEqual([
      { status: "failed", error: "abandoned: the process running it ended before it completed" },
    ]);
  } finally {
    await other.close();
  }
});
