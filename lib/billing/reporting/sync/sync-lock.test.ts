import { expect, test } from "bun:test";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import { openDatabase } from "../database.ts";
import { withSyncLock } from "./sync-lock.ts";

const db = reportingDatabaseOfFile();

test("one run per cloud across pools (processes), other clouds free, a dead run's row marked failed", async () => {
  const other = openDatabase(db.url, { max: 2 });
  try {
    await db.sql`insert into sync_runs (cloud, status, run_at) values ('c1', 'running', now())`;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const taken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const first = withSyncLock(db.sql, "c1", async () => {
      locked();
      await held;
      return "first";
    });
    await taken;
    await expect(withSyncLock(other.sql, "c1", async () => "second")).rejects.toThrow(
      "another sync of cloud c1 is running",
    );
    expect(await withSyncLock(other.sql, "c2", async () => "c2")).toBe("c2");
    release();
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
