import { beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import postgres from "postgres";
import { services } from "../test-services.ts";
import { type PostgresService, startPostgres } from "./postgres.ts";
import { expectStopLeavesNothing } from "./stop-leaves-nothing.ts";

let pg: PostgresService;

beforeAll(async () => {
  pg = await services.postgres();
}, 60_000);

test("a fresh database answers a query over TCP", async () => {
  const url = await pg.createDatabase();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`create table t (n int)`;
    await sql`insert into t values (1), (2)`;
    const [row] = await sql<{ total: number }[]>`select sum(n)::int as total from t`;
    expect(row?.total).toBe(3);
  } finally {
    await sql.end();
  }
});

test("each database is separate", async () => {
  const [a, b] = await Promise.all([pg.createDatabase(), pg.createDatabase()]);
  expect(a).not.toBe(b);
  expect(new URL(a).pathname).toMatch(/^\/svc_test_[0-9a-f]{12}$/);
});

test("a database is dropped on request, even with a session open", async () => {
  const url = await pg.createDatabase();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`select 1`;
  await pg.dropDatabase(url);
  await sql.end().catch(() => {});
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin`select 1 from pg_database where datname = ${new URL(url).pathname.slice(1)}`;
    expect(rows.length).toBe(0);
  } finally {
    await admin.end();
  }
  await expect(pg.dropDatabase(url)).rejects.toThrow(/was not made by createDatabase/);
});

test("an external server from SVC_TEST_PG_URL gets its test databases dropped at stop", async () => {
  const external = await startPostgres({ SVC_TEST_PG_URL: pg.url });
  expect(external.external).toBe(true);
  const url = await external.createDatabase();
  const name = new URL(url).pathname.slice(1);
  await external.stop();
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`select 1 from pg_database where datname = ${name}`;
    expect(rows.length).toBe(0);
  } finally {
    await sql.end();
  }
});

test("a private server's stop removes its processes and dir", async () => {
  const other = await startPostgres({});
  expect(existsSync(other.dir ?? "")).toBe(true);
  // The postmaster's background workers appear just after it accepts connections: list them late.
  await Bun.sleep(200);
  expect((await expectStopLeavesNothing(other)).length).toBeGreaterThanOrEqual(2);
}, 60_000);
