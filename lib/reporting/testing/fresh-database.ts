import { randomBytes } from "node:crypto";
import postgres from "postgres";

/**
 * A fresh, empty database per test file on the machine's PostgreSQL (or `SVC_TEST_PG_URL`), dropped by
 * `drop()`. A stop-gap until the harness's shared PostgreSQL accessor lands; then tests switch to it.
 */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

const serverUrl = process.env.SVC_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export async function freshDatabase(): Promise<FreshDatabase> {
  const name = `svc_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
