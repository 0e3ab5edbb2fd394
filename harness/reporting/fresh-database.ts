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
