import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyTestDatabase, copyUsage, copyUsageOutcome } from "../../../../harness/engine/usage-copy.ts";
import type { EngineDatabase } from "../engine-database.ts";

let db: Awaited<ReturnType<typeof copyTestDatabase>>;
let engine: EngineDatabase;
let runId: string;
beforeAll(async () => {
  db = await copyTestDatabase(1);
  engine = db.engine;
  const [row] = await engine.sql<{ id: string }[]>`insert into runs (kind, period, pricing_model, status)
    values ('regular', '2026-10', 'm', 'running') returning id::text`;
  runId = (row as { id: string }).id;
});
afterAll(() => db.dispose());

// The server refuses a COPY only after its data is sent, while the engine goes on metering and queues
// the next chunk behind it: the failure must reach the run's transaction (which then rolls back and
// the run is marked failed), and nothing may be left as an unhandled rejection, which ends a Bun
// process, or hang (porsager/postgres#1173, patched: decision 122).
describe("a COPY the database refuses", () => {
  test("fails the transaction at the next chunk or at the drain, leaving nothing stored", async () => {
    const outcomes: (string | null)[] = [];
    // Where the duplicate falls: in the first of several chunks (seen by the next send), and in the last one
    // (seen by the drain).
    for (const duplicateAt of [1, 7]) {
      const ids = Array.from({ length: 8 }, (_, i) => (i === duplicateAt ? `v${i - 1}` : `v${i}`));
      outcomes.push(
        await copyUsageOutcome(
          engine.sql,
          ids.map((resourceId) => ({
            runId,
            resourceId,
            from: "2026-10-01T00:00:00Z",
            to: "2026-10-02T00:00:00Z",
          })),
        ),
      );
    }
    // Past the microtasks where an unhandled rejection would have been reported.
    await Bun.sleep(50);
    const [row] = await engine.sql<{ n: number }[]>`select count(*)::int as n from usage`;
    expect([...outcomes, row?.n]).toEqual(["23505", "23505", 0]);
  });
});

describe("a chunk sent in pieces", () => {
  test("stores every row of chunks longer than a piece, and rows with escapes whole", async () => {
    const stored = await engine.sql
      .begin(async (tx) => {
        // About 100 bytes a row: a chunk of 1,500 rows spans several pieces of 65,536 bytes.
        const rows = Array.from({ length: 4_000 }, (_, i) => ({
          runId,
          resourceId: `piece\t${i}`,
          from: "2026-10-01T00:00:00Z",
          to: "2026-10-02T00:00:00Z",
        }));
        await copyUsage(tx, rows, 1_500);
        const stored = await tx<{ n: number; ids: number }[]>`
        select count(*)::int as n, count(distinct resource_id)::int as ids from usage where resource_id like 'piece%'`;
        throw Object.assign(new Error("rolled back"), { rows: stored });
      })
      .catch((error: { rows?: unknown }) => error.rows);
    expect(stored).toEqual([{ n: 4_000, ids: 4_000 }]);
  });
});
