import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FreshDatabase, freshDatabase } from "../../../../harness/reporting/fresh-database.ts";
import { copyIntoStatement } from "../../../foundation/postgres/table-columns.ts";
import { type EngineDatabase, migrateEngine, openEngineDatabase } from "../engine-database.ts";
import { CopyQueue, CopyWriter } from "./copy-rows.ts";
import { usage as usageTable } from "./engine-schema.ts";

let fresh: FreshDatabase;
let engine: EngineDatabase;
let runId: string;
beforeAll(async () => {
  fresh = await freshDatabase();
  await migrateEngine(fresh.url);
  engine = openEngineDatabase(fresh.url, { max: 1 });
  await engine.sql`insert into pricing_models (name, digest, currency, document) values ('m', 'd', 'EUR', '')`;
  const [row] = await engine.sql<{ id: string }[]>`insert into runs (kind, period, pricing_model, status)
    values ('regular', '2026-10', 'm', 'running') returning id::text`;
  runId = (row as { id: string }).id;
});
afterAll(async () => {
  await engine.close();
  await fresh.drop();
});

const statement = copyIntoStatement(usageTable, [
  "runId",
  "cloud",
  "platform",
  "resourceType",
  "resourceId",
  "projectId",
  "from",
  "to",
]);

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
      outcomes.push(
        await engine.sql
          .begin(async (tx) => {
            const queue = new CopyQueue(tx);
            const usage = new CopyWriter(queue, statement, 2);
            for (let i = 0; i < 8; i++) {
              const id = i === duplicateAt ? `v${i - 1}` : `v${i}`;
              await usage.add([
                runId,
                "c1",
                "platform_a",
                "volume",
                id,
                "p1",
                "2026-10-01T00:00:00Z",
                "2026-10-02T00:00:00Z",
              ]);
            }
            await usage.flush();
            await queue.drain();
          })
          .then(
            () => null,
            (error: { code?: string }) => error.code ?? "no code",
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
        const queue = new CopyQueue(tx);
        const usage = new CopyWriter(queue, statement, 1_500);
        // About 100 bytes a row: a chunk of 1,500 rows spans several pieces of 65,536 bytes.
        for (let i = 0; i < 4_000; i++) {
          await usage.add([
            runId,
            "c1",
            "platform_a",
            "volume",
            `piece\t${i}`,
            "p1",
            "2026-10-01T00:00:00Z",
            "2026-10-02T00:00:00Z",
          ]);
        }
        await usage.flush();
        await queue.drain();
        const rows = await tx<{ n: number; ids: number }[]>`
        select count(*)::int as n, count(distinct resource_id)::int as ids from usage where resource_id like 'piece%'`;
        throw Object.assign(new Error("rolled back"), { rows });
      })
      .catch((error: { rows?: unknown }) => error.rows);
    expect(stored).toEqual([{ n: 4_000, ids: 4_000 }]);
  });
});
