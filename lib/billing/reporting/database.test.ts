import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DrizzleQueryError } from "drizzle-orm/errors";
import fc from "fast-check";
import postgres from "postgres";
import { type FreshDatabase, freshDatabase } from "../../../harness/reporting/fresh-database.ts";
import { uniqueName } from "../../../harness/services/unique-name.ts";
import { UnavailableError } from "../../foundation/errors/svc-error.ts";
import { type Database, openDatabase, pgInstant } from "./database.ts";
import { describeDatabaseFailure } from "./database-failure.ts";

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

describe("what a failover looks like to a route", () => {
  const refused = (code: string) =>
    Object.assign(new postgres.PostgresError(`refused ${code}`), { code, severity: "ERROR" });
  const closed = Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), {
    code: "CONNECTION_CLOSED",
  });
  test("a lost connection, a shutdown or a demoted server is unavailable, also under drizzle", () => {
    for (const error of [closed, refused("57P01"), refused("25006")]) {
      expect(describeDatabaseFailure(error)).toBeInstanceOf(UnavailableError);
      expect(describeDatabaseFailure(new DrizzleQueryError("select 1", [], error))).toBeInstanceOf(
        UnavailableError,
      );
    }
  });
  test("a refusal of the statement itself stays what it is", () => {
    const unique = refused("23505");
    expect(describeDatabaseFailure(unique)).toBe(unique);
    const wrapped = new DrizzleQueryError("insert", [], unique);
    expect(describeDatabaseFailure(wrapped)).toBe(wrapped);
  });
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

// postgres.js 3.4.9 failed sql.begin() when its connection closed but let its callback run on, and the
// callback's later statements, its COMMIT or its ROLLBACK went to whatever transaction the reconnected
// connection served next (porsager/postgres#1216); statements queued in the transaction never settled
// (#1186). The patch fails them all with the close's error.
describe("a transaction whose connection closed while its callback ran on", () => {
  test("its later statements, queued ones and its commit fail, and never reach the next transaction", async () => {
    const pool = openDatabase(fresh.url, { max: 1 });
    const table = uniqueName("zombie");
    await pool.sql.unsafe(`create table ${table} (n int)`);
    try {
      let pid: number | null = null;
      const resumed = Promise.withResolvers<void>();
      const late: Promise<unknown>[] = [];
      let zombie: unknown = null;
      const first = pool.sql.begin(async (tx) => {
        const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
        pid = row?.pid ?? null;
        // A statement still queued in the transaction when the connection closes.
        const running = tx`select pg_sleep(5)`.execute();
        const queued = tx`select 1`.execute();
        late.push(
          running.catch((e: unknown) => e),
          queued.catch((e: unknown) => e),
        );
        await resumed.promise;
        // The callback runs on after its connection closed: this insert, then its COMMIT.
        zombie = await tx.unsafe(`insert into ${table} values (1)`).then(
          () => "stored",
          (error: unknown) => error,
        );
      });
      const firstFailed = first.then(
        () => null,
        (error: unknown) => error,
      );
      while (pid === null) await Bun.sleep(10);
      await killer.sql`select pg_terminate_backend(${pid})`;
      expect(describeDatabaseFailure(await firstFailed)).toBeInstanceOf(UnavailableError);
      for (const settled of await Promise.all(late)) expect(String(settled)).toMatch(/CONNECTION|terminat/i);

      // The next transaction gets the reconnected connection, and the first callback wakes inside it.
      const woken = Promise.withResolvers<void>();
      const second = pool.sql.begin(async (tx) => {
        await tx.unsafe(`insert into ${table} values (2)`);
        resumed.resolve();
        woken.resolve();
        await Bun.sleep(200);
        await tx.unsafe(`insert into ${table} values (3)`);
      });
      await woken.promise;
      await second;
      const stored = [...(await pool.sql.unsafe<{ n: number }[]>(`select n from ${table} order by n`))];
      expect({ zombie: String(zombie), stored }).toEqual({
        zombie: expect.stringMatching(/CONNECTION/),
        stored: [{ n: 2 }, { n: 3 }],
      });
    } finally {
      await pool.sql.unsafe(`drop table ${table}`);
      await pool.close();
    }
  });
});

// postgres.js 3.4.9 failed the queries in flight on a socket error, but a query sent between the
// error and the close (the ROLLBACK of the transaction the error failed) stayed in its pipeline, took
// the reconnected connection's next answer, and shifted every later answer onto the query before its
// own: the reporting faults test hung on a Describe whose Bind was never sent (decision 154).
describe("a statement sent between a socket error and the close", () => {
  test("fails, and the reconnected connection answers each statement of the next transaction", async () => {
    const pool = openDatabase(fresh.url, { max: 1 });
    try {
      for (let round = 0; round < 20; round++) {
        let pid: number | null = null;
        const failed = pool.sql
          .begin(async (tx) => {
            const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
            pid = row?.pid ?? null;
            // Pipelined, so that some are written after the server has gone (ECONNRESET).
            for (;;)
              await Promise.all([tx`select 1`.execute(), tx`select 2`.execute(), tx`select 3`.execute()]);
          })
          .catch((error: unknown) => error);
        while (pid === null) await Bun.sleep(1);
        await killer.sql`select pg_terminate_backend(${pid})`;
        expect(describeDatabaseFailure(await failed)).toBeInstanceOf(UnavailableError);
        const answered = await Promise.race([
          pool.sql.begin(async (tx) => {
            const [a] = await tx<{ n: number }[]>`select 1 as n`;
            const [b] = await tx<{ n: number }[]>`select 2 as n`;
            return [a?.n, b?.n];
          }),
          Bun.sleep(2000).then(() => "no answer in 2 s"),
        ]);
        expect({ round, answered }).toEqual({ round, answered: [1, 2] });
      }
    } finally {
      await pool.close();
    }
  });
});

// postgres.js 3.4.9 never settled a COPY FROM STDIN writable the server refused after CopyDone: the
// caller waited for ever and sql.begin() never rolled back (porsager/postgres#1173). Ingest's COPY path
// depends on seeing that refusal (decision 122); the patch settles the writable with the error.
describe("a COPY the server refuses after the data is sent", () => {
  test("fails its transaction with the server's error, and the connection serves again", async () => {
    const pool = openDatabase(fresh.url, { max: 1 });
    try {
      await pool.sql`create table copy_probe (k text primary key)`;
      await pool.sql`insert into copy_probe values ('taken')`;
      for (let round = 0; round < 3; round++) {
        const failure = await pool.sql
          .begin(async (tx) => {
            const writable = await tx`copy copy_probe (k) from stdin with (format csv)`.writable();
            await new Promise<void>((resolve, reject) => {
              writable.on("error", reject);
              writable.on("finish", resolve);
              writable.end("fresh\ntaken\n");
            });
          })
          .then(
            () => null,
            (error: { code?: string }) => error.code,
          );
        expect(failure).toBe("23505");
        expect([...(await pool.sql<{ k: string }[]>`select k from copy_probe order by k`)]).toEqual([
          { k: "taken" },
        ]);
      }
    } finally {
      await pool.close();
    }
  });
});

// postgres.js 3.4.9 asks the server for its array types on every new connection and discards that
// query's promise: when it fails (the primary dies while the pool opens a connection, a refusal), the
// rejection escapes where no caller can catch it and Bun prints it with its stack, mid-message of a
// failing engine run (porsager/postgres#1192, #1205). The patch drops it: the query that opened the
// connection already fails with the same error (decision 144).
describe("a new connection whose array-types query is refused", () => {
  test("fails the query that opened it, and nothing escapes as an unhandled rejection", async () => {
    const role = uniqueName("no_types");
    await killer.sql.unsafe(`create role ${role} login`);
    await killer.sql`revoke select on pg_catalog.pg_type from public`;
    const escaped: unknown[] = [];
    const onUnhandled = (reason: unknown) => escaped.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const url = new URL(fresh.url);
    url.username = role;
    const pool = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      const failure = await pool`select 1`.then(
        () => null,
        (error: { code?: string }) => error.code,
      );
      // Past the microtasks where the discarded rejection was reported.
      await Bun.sleep(50);
      expect({ failure, escaped }).toEqual({ failure: "42501", escaped: [] });
    } finally {
      process.off("unhandledRejection", onUnhandled);
      await pool.end({ timeout: 5 });
      await killer.sql`grant select on pg_catalog.pg_type to public`;
      await killer.sql.unsafe(`drop role ${role}`);
    }
  });
});

describe("pgInstant", () => {
  test("reads what PostgreSQL writes for a timestamptz in a UTC session, as text and in JSON", async () => {
    const [row] = await killer.sql<{ text: string; json: string[] }[]>`
      select t::text as text, json_build_array(t) as json
      from (select '2026-11-21 10:00:00.5+00'::timestamptz(3) as t) as x`;
    expect([pgInstant(row?.text ?? ""), pgInstant(row?.json[0] ?? "")]).toEqual([
      "2026-11-21T10:00:00.500Z",
      "2026-11-21T10:00:00.500Z",
    ]);
  });

  test("gives the instant a Date gives, for every millisecond instant in either form and other offsets", () => {
    const instant = fc
      .integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) })
      .map((ms) => new Date(ms));
    fc.assert(
      fc.property(instant, (at) => {
        const iso = at.toISOString();
        const ms = iso.slice(20, 23).replace(/0+$/, "");
        const text = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${ms ? `.${ms}` : ""}+00`;
        const json = `${iso.slice(0, 19)}${ms ? `.${ms}` : ""}+00:00`;
        expect([pgInstant(text), pgInstant(json), pgInstant(`${iso.slice(0, 19)}+02`)]).toEqual([
          iso,
          iso,
          new Date(at.getTime() - at.getUTCMilliseconds() - 2 * 3_600_000).toISOString(),
        ]);
      }),
    );
  });
});
