import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { copyTestDatabase, copyUsageOutcome } from "../../../harness/engine/usage-copy.ts";
import type { EngineDatabase } from "./engine-database.ts";

// Usage records and rated lines are checked once per statement, not by a foreign key (decision 431,
// drizzle/engine/0003_run_rows_checked_per_statement.sql); a refused COPY must fail the engine's
// transaction, not hang it (porsager/postgres#1173, patched: decision 122).
let db: Awaited<ReturnType<typeof copyTestDatabase>>;
let engine: EngineDatabase;
beforeAll(async () => {
  db = await copyTestDatabase(2);
  engine = db.engine;
});
afterAll(() => db.dispose());

let periods = 0;

/** A run of its own period: at most one run of a period may be running. */
async function newRun(status: "running" | "completed" | "failed" | "finalized"): Promise<string> {
  const [row] = await engine.sql<{ id: string }[]>`insert into runs (kind, period, pricing_model, status)
    values ('regular', ${`${2000 + Math.floor(periods / 12)}-${String((periods % 12) + 1).padStart(2, "0")}`},
      'm', 'running') returning id::text`;
  periods += 1;
  const id = (row as { id: string }).id;
  if (status !== "running") await engine.sql`update runs set status = ${status} where id = ${id}`;
  return id;
}

/** Writes `runIds`' usage rows with the engine's COPY writer inside one transaction; the failure's code. */
function writeUsage(runIds: readonly string[], rows = 3): Promise<string | null> {
  return copyUsageOutcome(
    engine.sql,
    runIds.flatMap((runId) =>
      Array.from({ length: rows }, (_, i) => ({
        runId,
        resourceId: `v${i}`,
        from: `2026-10-0${i + 1}T00:00:00Z`,
        to: "2026-10-10T00:00:00Z",
      })),
    ),
  );
}

const stored = async (runId: string) => {
  const [row] = await engine.sql<{ usage: number; rated: number }[]>`select
    (select count(*)::int from usage where run_id = ${runId}) as usage,
    (select count(*)::int from rated_lines where run_id = ${runId}) as rated`;
  return row;
};

beforeEach(async () => {
  await engine.sql`delete from usage`;
  await engine.sql`delete from rated_lines`;
  await engine.sql`delete from runs where status <> 'finalized'`;
});

describe("rows of a running run", () => {
  test("go in by COPY and by insert", async () => {
    const runId = await newRun("running");
    expect(await writeUsage([runId])).toBeNull();
    await engine.sql`insert into rated_lines (run_id, cloud, platform, resource_type, resource_id, project_id,
      dimension, quantity, unit_price, amount) values (${runId}, 'c1', 'platform_a', 'volume', 'v1', 'p1',
      'size_gb', 1, 1, 1)`;
    expect(await stored(runId)).toEqual({ usage: 3, rated: 1 });
  });
});

describe("rows refused", () => {
  test("of no run, or of a run that is not running, even among a running run's rows: the COPY fails, nothing stays", async () => {
    const running = await newRun("running");
    const unknown = "00000000-0000-4000-8000-000000000000";
    const outcomes: (string | null)[] = [];
    for (const other of [
      unknown,
      await newRun("completed"),
      await newRun("failed"),
      await newRun("finalized"),
    ]) {
      outcomes.push(await writeUsage([running, other]));
      outcomes.push(
        await engine.sql`insert into rated_lines (run_id, cloud, platform, resource_type, resource_id,
          project_id, dimension, quantity, unit_price, amount) values (${other}, 'c1', 'platform_a', 'volume',
          'v1', 'p1', 'size_gb', 1, 1, 1)`.then(
          () => null,
          (error: { code?: string }) => error.code ?? "no code",
        ),
      );
    }
    expect(outcomes).toEqual(Array(8).fill("23503"));
    expect(await stored(running)).toEqual({ usage: 0, rated: 0 });
  });

  test("a run with rows cannot be deleted; one without can", async () => {
    const withRows = await newRun("running");
    expect(await writeUsage([withRows], 1)).toBeNull();
    const bare = await newRun("running");
    const deleted = async (id: string) =>
      engine.sql`delete from runs where id = ${id}`.then(
        (result) => result.count,
        (error: { code?: string }) => error.code,
      );
    expect([await deleted(withRows), await deleted(bare)]).toEqual(["23503", 1]);
  });
});

// Run ids ordered by time (decision 448): a run's rows go in at the right edge of both primary keys.
describe("run ids", () => {
  test("are version 7 UUIDs, each greater than those of runs started a millisecond or more before", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await newRun("completed"));
      await Bun.sleep(2);
    }
    // Lowercase hexadecimal text sorts as the uuid's bytes do.
    expect([ids.every((id) => id[14] === "7"), [...ids].sort()]).toEqual([true, ids]);
  });
});
