import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UnavailableError } from "../errors/svc-error.ts";
import { type Database, openDatabase } from "./database.ts";
import { describeDatabaseFailure } from "./database-failure.ts";
import { type FreshDatabase, freshDatabase } from "./testing/fresh-database.ts";

let fresh: FreshDatabase;
let killer: Database;
beforeAll(async () => {
  fresh = await freshDatabase();
  killer = openDatabase(fresh.url, { max: 1 });
});
afterAll(async () => {
  await killer.close();
  await fresh.drop();
});

// postgres.js 3.4.9 sends begin()'s ROLLBACK to a connection whose socket is gone and throws from a
// setImmediate callback, which no caller can catch: the process dies (porsager/postgres#1208). Our
// patch (patches/postgres@3.4.9.patch, decision 117) fails that write as CONNECTION_CLOSED instead.
// Were the patch lost, bun test reports the uncaught TypeError and this file fails.
describe("a pool whose backend is terminated inside a transaction", () => {
  test("the transaction fails as unavailable, nothing escapes, the pool serves again and closes", async () => {
    const pool = openDatabase(fresh.url, { max: 2 });
    try {
      for (let round = 0; round < 5; round++) {
        let pid: number | null = null;
        const transaction = pool.sql.begin(async (tx) => {
          const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
          pid = row?.pid ?? null;
          await tx`select pg_sleep(5)`;
        });
        while (pid === null) await Bun.sleep(10);
        await killer.sql`select pg_terminate_backend(${pid})`;
        const failure = await transaction.then(
          () => null,
          (error: unknown) => describeDatabaseFailure(error),
        );
        expect(failure).toBeInstanceOf(UnavailableError);
        // Past the immediates the failed transaction scheduled, where the unpatched driver threw.
        await Bun.sleep(50);
        expect([...(await pool.sql<{ one: number }[]>`select 1 as one`)]).toEqual([{ one: 1 }]);
      }
    } finally {
      // Unpatched, end() also waited for ever on the connection whose query had failed (#1142).
      await pool.close();
    }
  });
});
