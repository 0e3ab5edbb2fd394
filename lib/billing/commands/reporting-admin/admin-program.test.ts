import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FreshDatabase, freshDatabase } from "../../../../harness/reporting/fresh-database.ts";
import { startOctoberPlatformApi } from "../../../../harness/reporting/october-platform-api.ts";
import { writePlatformCloudFiles } from "../../../../harness/reporting/platform-cloud-files.ts";
import { runCaptured } from "../../../foundation/cli/capture-io.ts";
import { migrationCount } from "../../../foundation/postgres/migration-count.ts";
import { findApiToken, findIngestCredential } from "../../reporting/auth/credential-lookup.ts";
import { hashSecret } from "../../reporting/auth/secret-token.ts";
import { openDatabase } from "../../reporting/database.ts";
import { reportingMigrationsFolder } from "../../reporting/migrate.ts";
import { adminProgram } from "./admin-program.ts";

let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshDatabase();
});
afterAll(async () => {
  await fresh.drop();
});

async function run(env: Record<string, string>, argv: string[]) {
  const outcome = await runCaptured(adminProgram(), argv, env);
  return { ...outcome, lines: outcome.stdout.split("\n").filter((l) => l !== "") };
}

async function admin(...argv: string[]): Promise<Record<string, unknown>[]> {
  const { code, stderr, lines } = await run({ SVC_REPORTING_DB_URL: fresh.url }, argv);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The refusal line of a command that must fail with exit 1. */
async function failure(...argv: string[]): Promise<string> {
  const { code, stderr } = await run({ SVC_REPORTING_DB_URL: fresh.url }, argv);
  expect(code).toBe(1);
  return (stderr.split("\n")[0] ?? "").replace(/^reporting-admin: /, "");
}

test("migrate, issue, list, revoke: only hashes are stored and a secret is shown once", async () => {
  expect((await admin("migrate"))[0]?.applied).toBe(await migrationCount(reportingMigrationsFolder));
  expect((await admin("migrate"))[0]?.applied).toBe(0);

  const [token] = await admin("token", "issue", "--role", "read_all", "--label", "ops");
  const [cred] = await admin("ingest", "issue", "--platform", "platform_a", "--cloud", "c1");
  const tokenSecret = String(token?.secret);
  const credSecret = String(cred?.secret);
  expect(tokenSecret).toMatch(/^svc_api_[A-Za-z0-9_-]{43}$/);
  expect(credSecret).toMatch(/^svc_ingest_[A-Za-z0-9_-]{43}$/);

  const listed = [...(await admin("token", "list")), ...(await admin("ingest", "list"))];
  expect(listed).toHaveLength(2);
  expect(JSON.stringify(listed)).not.toContain(tokenSecret);
  expect(JSON.stringify(listed)).not.toContain(credSecret);

  const { sql, close } = openDatabase(fresh.url, { max: 1 });
  try {
    const stored =
      await sql`select secret_hash from api_tokens union all select secret_hash from ingest_credentials`;
    expect(stored.map((r) => r.secret_hash).sort()).toEqual(
      [hashSecret(tokenSecret), hashSecret(credSecret)].sort(),
    );
    expect(await findApiToken(sql, tokenSecret)).toEqual({
      scheme: "api",
      id: String(token?.id),
      role: "read_all",
      projectIds: null,
    });
    // A secret of one scheme is unknown to the other.
    expect(await findIngestCredential(sql, tokenSecret)).toBeNull();
    expect(await findApiToken(sql, credSecret)).toBeNull();

    await admin("ingest", "revoke", String(cred?.id));
    expect(await findIngestCredential(sql, credSecret)).toBeNull();
    const audit = await sql`select action from audit_log order by id`;
    expect(audit.map((a) => a.action)).toEqual([
      "api_tokens.issue",
      "ingest_credentials.issue",
      "ingest_credentials.revoke",
    ]);
  } finally {
    await close();
  }
  expect(await failure("ingest", "revoke", String(cred?.id))).toBe(`no active ingest credential ${cred?.id}`);
});

test("refusals are one clear line", async () => {
  await admin("migrate");
  expect(await failure("token", "issue", "--role", "root")).toBe(
    "role must be one of reader, read_all, admin",
  );
  expect(await failure("token", "issue", "--role", "admin", "--projects", crypto.randomUUID())).toBe(
    "an admin token takes no project scope",
  );
  const unknown = crypto.randomUUID();
  expect(await failure("token", "issue", "--role", "reader", "--projects", unknown)).toBe(
    `no registered project with id ${unknown}`,
  );
  expect(await failure("ingest", "issue", "--platform", "meta", "--cloud", "c")).toBe(
    "platform must not be meta or partner: no events are reported for them",
  );
  expect(await failure("token", "revoke", "nope")).toBe("a credential id is a UUID");

  const { sql, close } = openDatabase(fresh.url, { max: 1 });
  try {
    const [p] =
      await sql`insert into projects (platform, cloud, external_id) values ('platform_a', 'c1', 'x') returning id`;
    const [scoped] = await admin("token", "issue", "--role", "reader", "--projects", String(p?.id));
    expect(scoped?.project_ids).toEqual([String(p?.id)]);
  } finally {
    await close();
  }
});

test("a refused configuration and an unreachable database are named", async () => {
  const list = (env: Record<string, string>) => run(env, ["token", "list"]);
  expect(await list({})).toMatchObject({
    code: 1,
    stderr:
      "reporting-admin: SVC_REPORTING_DB_URL is required\nreporting-admin: see 'reporting-admin token list --help'\n",
  });
  const unreachable = await list({ SVC_REPORTING_DB_URL: "postgres://u:secretpw@127.0.0.1:1/x" });
  expect(unreachable).toMatchObject({
    code: 2,
    stderr: "reporting-admin: cannot reach the database (ECONNREFUSED)\n",
  });
});

describe("reporting-admin sync", () => {
  test("runs a sync as the route does, prints the SyncResult; refusals name the flag or variable", async () => {
    expect((await admin("migrate"))[0]).toBeDefined();
    const api = await startOctoberPlatformApi({ seed: 3, tenants: 1 });
    const dir = mkdtempSync(join(tmpdir(), "svc-admin-sync-"));
    let stopped = false;
    try {
      api.at(Date.parse("2026-10-10T00:00:00Z"));
      const files = writePlatformCloudFiles(dir, [{ name: "cloud-1", url: api.url }]);
      const env = {
        SVC_REPORTING_DB_URL: fresh.url,
        SVC_REPORTING_CLOUDS_CONFIG: files.cloudsConfig,
        OS_CLIENT_CONFIG_FILE: files.cloudsYaml,
        SVC_REPORTING_SYNC_ALLOW_AT: "true",
        SVC_REPORTING_SYNC_SETTLE_S: "0",
        // The sync's log goes to stderr: only an error may reach it here.
        SVC_LOG_LEVEL: "ERROR",
      };
      const first = await run(env, ["sync", "--cloud", "cloud-1", "--at", "2026-10-10T00:00:00Z"]);
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: "" });
      const result = JSON.parse(first.lines[0] ?? "{}") as Record<string, unknown>;
      expect(result).toMatchObject({ cloud: "cloud-1", status: "succeeded", at: "2026-10-10T00:00:00.000Z" });
      expect(result.created).toBeGreaterThan(0);
      const again = await run(env, ["sync", "--cloud", "cloud-1", "--at", "2026-10-10T00:00:00Z"]);
      expect(JSON.parse(again.lines[0] ?? "{}")).toMatchObject({
        created: 0,
        updated: 0,
        deleted: 0,
        accepted: 0,
      });

      const refusal = async (e: Record<string, string>, argv: string[]) => {
        const out = await run(e, argv);
        return { code: out.code, first: out.stderr.split("\n")[0] };
      };
      // A caller's mistakes: each refused with exit 1 and one line that says which.
      const noAt = { ...env, SVC_REPORTING_SYNC_ALLOW_AT: "false" };
      const mistakes: [Record<string, string>, string[], string][] = [
        [
          noAt,
          ["sync", "--cloud", "cloud-1", "--at", "x"],
          'reporting-admin: --at takes an RFC 3339 instant with an offset, got "x"',
        ],
        [
          noAt,
          ["sync", "--cloud", "cloud-1", "--at", "2026-10-10T00:00:00Z"],
          "reporting-admin: --at needs SVC_REPORTING_SYNC_ALLOW_AT=true",
        ],
        [env, ["sync", "--cloud", "cloud-9"], "reporting-admin: the clouds file names no cloud cloud-9"],
        [
          { SVC_REPORTING_DB_URL: fresh.url },
          ["sync", "--cloud", "cloud-1"],
          "reporting-admin: SVC_REPORTING_CLOUDS_CONFIG is unset: there is no cloud to sync",
        ],
      ];
      for (const [e, argv, line] of mistakes)
        expect([argv, await refusal(e, argv)]).toEqual([argv, { code: 1, first: line }]);
      await api.stop();
      stopped = true;
      const down = await refusal(env, ["sync", "--cloud", "cloud-1"]);
      expect(down.code).toBe(2);
      expect(down.first).toMatch(
        /^reporting-admin: sync run \S+ of cloud cloud-1 failed: the identity service at .* did not answer$/,
      );
    } finally {
      if (!stopped) await api.stop();
      rmSync(dir, { recursive: true });
    }
  }, 60_000);
});
