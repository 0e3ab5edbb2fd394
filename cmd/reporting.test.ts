import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "../harness/process/free-port.ts";
import { contractFetch } from "../harness/reporting/contract-fetch.ts";
import {
  type ReportingTestDatabase,
  reportingTestDatabase,
} from "../harness/reporting/reporting-database.ts";
import { TcpGate } from "../harness/reporting/tcp-gate.ts";

let db: ReportingTestDatabase;
let dir: string;
const running: Subprocess[] = [];
beforeAll(async () => {
  db = await reportingTestDatabase(1);
  dir = mkdtempSync(join(tmpdir(), "svc-reporting-cmd-"));
});
afterAll(async () => {
  for (const p of running) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
  await db.dispose();
});

const script = join(import.meta.dir, "reporting.ts");

function start(env: Record<string, string>, args: string[] = []) {
  const proc = Bun.spawn(["bun", script, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  running.push(proc);
  return proc;
}

async function outputOf(proc: Subprocess<"ignore", "pipe", "pipe">) {
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await Bun.sleep(100);
  }
}

// Every answer of the server process is checked against the served contract (decision 140).
async function status(port: number, path: string, init?: RequestInit): Promise<number> {
  return (await contractFetch(`http://127.0.0.1:${port}${path}`, init)).status;
}

/** Waits until `/readyz` answers `expected`: the probes follow the database a moment late. */
async function readyzAnswers(port: number, expected: number): Promise<void> {
  await waitFor(async () => ((await status(port, "/readyz")) === expected ? true : undefined));
}

describe("cmd/reporting.ts", () => {
  test("starts with the database down, says so through the probes, serves once it is up, exits 0 on SIGTERM", async () => {
    const dbUrl = new URL(db.url);
    const gatePort = await freePort();
    const gate = new TcpGate(gatePort, { hostname: dbUrl.hostname, port: Number(dbUrl.port || 5432) });
    const viaGate = new URL(db.url);
    viaGate.port = String(gatePort);
    const httpPort = await freePort();
    const proc = start({
      SVC_REPORTING_DB_URL: viaGate.toString(),
      SVC_REPORTING_HTTP_PORT: String(httpPort),
      SVC_REPORTING_AUTH_MODE: "disabled",
      SVC_REPORTING_UNHEALTHY_THRESHOLD_S: "1",
    });
    try {
      await readyzAnswers(httpPort, 503);
      const problem = await contractFetch(`http://127.0.0.1:${httpPort}/readyz`);
      expect(problem.headers.get("content-type")).toBe("application/problem+json");
      expect((problem.json as { type: string }).type).toBe("urn:svc:error:unavailable");
      // Down for longer than the threshold: liveness fails too.
      await Bun.sleep(1200);
      await status(httpPort, "/readyz");
      expect(await status(httpPort, "/healthz")).toBe(503);
      const refused = await contractFetch(`http://127.0.0.1:${httpPort}/api/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "[]",
      });
      // Ingest while the database is down is a 503 the collector may retry, never a 500.
      expect(refused.status).toBe(503);
      expect((refused.json as { type: string }).type).toBe("urn:svc:error:unavailable");

      gate.open();
      await readyzAnswers(httpPort, 200);
      expect(await status(httpPort, "/healthz")).toBe(200);
      const ingest = await contractFetch(`http://127.0.0.1:${httpPort}/api/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          event_id: "down-up",
          timestamp: "2026-11-20T00:00:00Z",
          event_type: "image.create",
          platform: "platform_a",
          cloud: "c1",
          resource_type: "image",
          resource_id: "img-1",
          project_id: "p1",
          payload: { state: "active", size: { size_gb: 2 } },
        }),
      });
      expect(ingest.json).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
      proc.kill("SIGTERM");
      const out = await outputOf(proc);
      expect(out.code).toBe(0);
      const lines = out.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.filter((l) => l.service !== "svc-reporting")).toEqual([]);
      expect(
        lines.some(
          (l) => l.level === "warn" && String(l.msg).includes("SVC_REPORTING_AUTH_MODE is disabled"),
        ),
      ).toBe(true);
      expect(out.stdout).not.toContain(viaGate.password || "\u0000");
    } finally {
      gate.shut();
      proc.kill("SIGKILL");
    }
  }, 30_000);

  test("refuses what it cannot honour with exit 1 before listening, naming the variable", async () => {
    const base = { SVC_REPORTING_DB_URL: db.url, SVC_REPORTING_INTERNAL_TOKEN: "t" };
    const clouds = join(dir, "clouds.yaml");
    writeFileSync(clouds, "clouds:\n  c1: {platform: platform_a, adapter: platform_a}\n");
    const cases: [Record<string, string>, string[], string][] = [
      [
        { ...base, SVC_REPORTING_OIDC_JWKS_URL: "https://idp.example/jwks" },
        [],
        "SVC_REPORTING_OIDC_JWKS_URL must be unset",
      ],
      [{ SVC_REPORTING_INTERNAL_TOKEN: "t" }, [], "SVC_REPORTING_DB_URL is required"],
      [
        { SVC_REPORTING_DB_URL: db.url },
        [],
        "SVC_REPORTING_INTERNAL_TOKEN (or SVC_REPORTING_INTERNAL_TOKEN_FILE) is required",
      ],
      [{ ...base, SVC_LOG_LEVEL: "info" }, [], "SVC_LOG_LEVEL takes exactly one of DEBUG, INFO, WARN, ERROR"],
      [
        { ...base, SVC_REPORTING_CLOUDS_CONFIG: clouds, OS_CLIENT_CONFIG_FILE: join(dir, "none.yaml") },
        [],
        `cloud c1: no clouds.yaml found (looked for ${join(dir, "none.yaml")})`,
      ],
      [
        { ...base, SVC_REPORTING_CLOUDS_CONFIG: join(dir, "missing.yaml") },
        [],
        "the clouds file cannot be read (ENOENT)",
      ],
      [base, ["--port", "1"], "reporting: unknown flag --port"],
    ];
    for (const [env, args, expected] of cases) {
      const out = await outputOf(start({ ...env, SVC_REPORTING_HTTP_PORT: "0" }, args));
      expect(out.code).toBe(1);
      expect(out.stdout + out.stderr).toContain(expected);
      expect(out.stdout).not.toContain('"msg":"listening"');
    }
  }, 60_000);

  test("a port it cannot bind exits 1", async () => {
    const port = await freePort();
    const holder = Bun.listen({ hostname: "0.0.0.0", port, socket: { data() {} } });
    try {
      const out = await outputOf(
        start({
          SVC_REPORTING_DB_URL: db.url,
          SVC_REPORTING_AUTH_MODE: "disabled",
          SVC_REPORTING_HTTP_PORT: String(port),
        }),
      );
      expect(out.code).toBe(1);
      expect(out.stdout).toContain('"msg":"the reporting server cannot start"');
    } finally {
      holder.stop(true);
    }
  });

  test("accepts every setting at a valid value, secrets through _FILE", async () => {
    const dbFile = join(dir, "db-url");
    const tokenFile = join(dir, "token");
    writeFileSync(dbFile, `${db.url}\n`);
    writeFileSync(tokenFile, "internal\n");
    const httpPort = await freePort();
    const proc = start({
      SVC_LOG_LEVEL: "WARN",
      SVC_REPORTING_HTTP_PORT: String(httpPort),
      SVC_REPORTING_DB_URL_FILE: dbFile,
      SVC_REPORTING_DB_MAX_CONNS: "2",
      SVC_REPORTING_AUTH_MODE: "enforced",
      SVC_REPORTING_INTERNAL_TOKEN_FILE: tokenFile,
      SVC_REPORTING_UNHEALTHY_THRESHOLD_S: "30",
      SVC_INGEST_REQUIRE_SIZE_SCHEMA: "true",
      SVC_REPORTING_ATTRIBUTING_RELATION_TYPES: "infrastructure_tenant,reseller_of",
      SVC_REPORTING_SYNC_ALLOW_AT: "true",
      SVC_REPORTING_SYNC_BUDGET_S: "120",
      SVC_REPORTING_SYNC_SETTLE_S: "0",
      SVC_METRICS_ENABLED: "false",
      SVC_REPORTING_METRICS_REFRESH_S: "5",
    });
    try {
      await readyzAnswers(httpPort, 200);
      expect(await status(httpPort, "/metrics")).toBe(404);
      expect(
        await status(httpPort, "/internal/projection/rebuild", {
          method: "POST",
          headers: { authorization: "Bearer internal", "content-type": "application/json" },
          body: "{}",
        }),
      ).toBe(200);
      proc.kill("SIGINT");
      expect((await outputOf(proc)).code).toBe(0);
    } finally {
      proc.kill("SIGKILL");
    }
  }, 30_000);
});
