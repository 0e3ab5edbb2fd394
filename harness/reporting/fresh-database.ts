import { afterAll, beforeAll } from "bun:test";
import postgres, { type Sql } from "postgres";
import { services } from "../test-services.ts";

/**
 * A fresh, empty database per test file on the run's shared PostgreSQL (the harness's private server,
 * or `SVC_TEST_PG_URL`), dropped by `drop()` so a long run does not pile databases up.
 */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const pg = await services.postgres();
  const url = await pg.createDatabase();
  return { url, drop: () => pg.dropDatabase(url) };
}

/**
 * A fresh database and a one-connection client of it for a test file, made before its tests and
 * closed and dropped after them by bun:test hooks the call registers (hooks registered after it run
 * after it, so they may use it). `sql` is set once the file's tests begin.
 */
export function freshClientOfFile(): { sql: Sql } {
  const client = {} as { sql: Sql };
  let fresh: FreshDatabase | undefined;
  beforeAll(async () => {
    fresh = await freshDatabase();
    client.sql = postgres(fresh.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await client.sql?.end({ timeout: 5 });
    await fresh?.drop();
  });
  return client;
}
