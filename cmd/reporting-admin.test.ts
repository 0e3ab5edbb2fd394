import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProgram } from "../harness/process/run-program.ts";
import { type FreshDatabase, freshDatabase } from "../harness/reporting/fresh-database.ts";
import { startOctoberPlatformApi } from "../harness/reporting/october-platform-api.ts";
import { writePlatformCloudFiles } from "../harness/reporting/platform-cloud-files.ts";
import { reportingMigrationsFolder } from "../lib/billing/reporting/migrate.ts";
import { migrationCount } from "../lib/foundation/postgres/migration-count.ts";

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
  expect(JSON.parse(migrated.stdout).applied).toBe(await migrationCount(reportingMigrationsFolder));
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

test("reporting-admin sync: its help names its flags and variables; a run prints the SyncResult", async () => {
  const help = await admin(["sync", "--help"], {});
  expect(help.code).toBe(0);
  for (const fragment of ["--cloud", "--at", "SVC_REPORTING_CLOUDS_CONFIG", "SVC_REPORTING_SYNC_BUDGET_S"]) {
    expect(help.stdout).toContain(fragment);
  }
  expect((await admin(["migrate"])).code).toBe(0);
  const api = await startOctoberPlatformApi({ seed: 2, tenants: 1, cloud: "c1" });
  const dir = mkdtempSync(join(tmpdir(), "svc-admin-sync-"));
  try {
    api.at(Date.parse("2026-10-12T00:00:00Z"));
    const files = writePlatformCloudFiles(dir, [{ name: "c1", url: api.url }]);
    const out = await admin(["sync", "--cloud", "c1"], {
      SVC_REPORTING_DB_URL: fresh.url,
      SVC_REPORTING_CLOUDS_CONFIG: files.cloudsConfig,
      OS_CLIENT_CONFIG_FILE: files.cloudsYaml,
    });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ cloud: "c1", status: "succeeded", size_names: 3 });
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true });
  }
}, 60_000);
