import { afterAll, beforeAll, expect, test } from "bun:test";
import { runProgram } from "../harness/process/run-program.ts";
import { type FreshDatabase, freshDatabase } from "../lib/reporting/testing/fresh-database.ts";
import { reportingMigrationCount } from "../lib/reporting/testing/migration-count.ts";

let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshDatabase();
});
afterAll(async () => {
  await fresh.drop();
});

function admin(args: string[], env: Record<string, string> = { SVC_REPORTING_DB_URL: fresh.url }) {
  return runProgram("cmd/reporting-admin.ts", args, env);
}

test("the admin CLI: exit 0 on success, 1 with one clear line on a mistake", async () => {
  const migrated = await admin(["migrate"]);
  expect(migrated.code).toBe(0);
  expect(JSON.parse(migrated.stdout).applied).toBe(await reportingMigrationCount());
  const issued = await admin(["ingest", "issue", "--platform", "platform_a", "--cloud", "c1"]);
  expect(issued.code).toBe(0);
  expect(JSON.parse(issued.stdout).secret).toMatch(/^svc_ingest_/);

  expect(await admin(["token", "issue", "--role", "owner"])).toMatchObject({
    code: 1,
    stderr:
      "reporting-admin: role must be one of reader, read_all, admin\nreporting-admin: see 'reporting-admin token issue --help'\n",
  });
  expect(await admin(["token", "list"], {})).toMatchObject({
    code: 1,
    stderr:
      "reporting-admin: SVC_REPORTING_DB_URL is required\nreporting-admin: see 'reporting-admin token list --help'\n",
  });
  const usage = await admin([]);
  expect(usage.code).toBe(1);
  expect(usage.stdout + usage.stderr).toContain("migrate");
});
