import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCaptured } from "../cli/capture-io.ts";
import { adminProgram } from "./admin-cli.ts";
import { findApiToken, findIngestCredential } from "./auth/credential-lookup.ts";
import { hashSecret } from "./auth/secret-token.ts";
import { openDatabase } from "./database.ts";
import { type FreshDatabase, freshDatabase } from "./testing/fresh-database.ts";
import { reportingMigrationCount } from "./testing/migration-count.ts";

let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshDatabase();
});
afterAll(async () => {
  await fresh.drop();
});

async function run(env: Record<string, string>, argv: string[]) {
  const lines: string[] = [];
  const outcome = await runCaptured(adminProgram({ print: (l) => lines.push(l) }), argv, env);
  return { ...outcome, lines };
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
  expect((await admin("migrate"))[0]?.applied).toBe(await reportingMigrationCount());
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
    code: 1,
    stderr: "reporting-admin: cannot reach the database (ECONNREFUSED)\n",
  });
});
