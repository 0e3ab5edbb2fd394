import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promtoolLint } from "../../../../harness/metrics/promtool.ts";
import { octoberPlatformApiOfFile } from "../../../../harness/reporting/october-platform-api.ts";
import { loadPlatformClouds } from "../../../../harness/reporting/platform-cloud-files.ts";
import { PlatformFaultProxy, type ProxyFault } from "../../../../harness/reporting/platform-fault-proxy.ts";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import {
  buildTestApp,
  call,
  type TestAppOptions,
  testInternalToken,
} from "../../../../harness/reporting/reporting-test-app.ts";
import { openDatabase } from "../database.ts";
import { withSyncLock } from "../sync/sync-lock.ts";
import type { SyncResult } from "../sync/sync-run.ts";

const at = "2026-10-20T00:00:00.000Z";
const db = reportingDatabaseOfFile();
const api = octoberPlatformApiOfFile({ seed: 5, tenants: 2, at });
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-sync-route-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true });
});
beforeEach(async () => {
  await db.reset();
});

/** An app whose cloud-1 is the fake platform API, reached through `url` (a fault proxy, or the API). */
function appFor(url: string, options: TestAppOptions = {}) {
  const clouds = loadPlatformClouds(dir, [{ name: "cloud-1", url }]);
  return buildTestApp(db, { clouds, sync: { allowAt: true, settleS: 0 }, ...options }).app;
}

const sync = (app: ReturnType<typeof appFor>, body: unknown = { at }, cloud = "cloud-1") =>
  call(app, "POST", `/internal/sync/${cloud}`, { token: testInternalToken, body });

const countEvents = async () => Number((await db.sql`select count(*)::int as n from events`)[0]?.n);

const runs = async () => [...(await db.sql`select status, error, stats from sync_runs order by started_at`)];

/** Runs `work` with a proxy in front of the API that applies `rule`, stopping it afterwards. */
async function throughProxy<T>(
  rule: (request: { path: string }) => ProxyFault | null,
  work: (proxy: PlatformFaultProxy) => Promise<T>,
): Promise<T> {
  const proxy = PlatformFaultProxy.start(api.url, rule);
  try {
    return await work(proxy);
  } finally {
    await proxy.stop();
  }
}

describe("POST /internal/sync/{cloud}", () => {
  test("a first run books the cloud as SyncResult and a sync_runs row; a repeated run writes nothing", async () => {
    const app = appFor(api.url);
    const first = await sync(app);
    expect(first.status).toBe(200);
    const result = first.json as SyncResult;
    expect(result).toMatchObject({
      cloud: "cloud-1",
      status: "succeeded",
      at,
      size_names: 3,
      updated: 0,
      deleted: 0,
    });
    expect(result.created).toBeGreaterThan(10);
    expect(result.accepted).toBe(result.created);
    expect(result.observed).toBe(result.created + result.deferred);
    expect(result.resource_types.map((t) => t.resource_type)).toEqual([
      "floating_ip",
      "image",
      "instance",
      "loadbalancer",
      "volume",
      "volume_backup",
      "volume_snapshot",
    ]);
    expect(await countEvents()).toBe(result.accepted);
    const sources = await db.sql`select distinct source, event_type from events order by event_type`;
    expect([...sources]).toEqual([{ source: "reconciliation", event_type: "sync.create" }]);
    const { run_id, cloud, status, at: runAt, started_at, finished_at, ...stats } = result;
    expect(await runs()).toEqual([{ status: "succeeded", error: null, stats }]);
    expect([run_id, cloud, status, runAt, started_at < finished_at]).toEqual([
      (await db.sql`select id from sync_runs`)[0]?.id,
      "cloud-1",
      "succeeded",
      at,
      true,
    ]);

    const again = await sync(app);
    expect(again.json).toMatchObject({ created: 0, updated: 0, deleted: 0, accepted: 0, duplicates: 0 });
    expect(await countEvents()).toBe(result.accepted);
  });

  test("svc_sync_* count server runs by outcome and the exposition passes promtool", async () => {
    const app = appFor(api.url);
    expect((await sync(app)).status).toBe(200);
    await throughProxy(
      ({ path }) => (path.startsWith("/image/") ? { status: 503 } : null),
      async (proxy) => {
        expect((await sync(appFor(proxy.url, { metricsEnabled: true }), { at })).status).toBe(500);
      },
    );
    const text = String((await call(app, "GET", "/metrics")).json);
    expect(text).toContain('svc_sync_runs_total{cloud="cloud-1",outcome="succeeded"} 1');
    expect(text).toContain('svc_sync_duration_seconds_count{cloud="cloud-1"} 1');
    expect(promtoolLint(text)).toBe("");
  });
});

describe("POST /internal/sync/{cloud} refusals", () => {
  test("401 without the internal token; 404 for a cloud not named, and for every cloud without a clouds file", async () => {
    const app = appFor(api.url);
    expect((await call(app, "POST", "/internal/sync/cloud-1", { body: {} })).status).toBe(401);
    expect(await sync(app, {}, "cloud-9")).toMatchObject({
      status: 404,
      json: { type: "urn:svc:error:not_found", detail: "the clouds file names no cloud cloud-9" },
    });
    const bare = buildTestApp(db).app;
    expect(await sync(bare, {})).toMatchObject({
      status: 404,
      json: { detail: "no clouds are configured (SVC_REPORTING_CLOUDS_CONFIG is unset)" },
    });
    expect(await runs()).toEqual([]);
  });

  test("400: `at` without SVC_REPORTING_SYNC_ALLOW_AT, a body that is not a SyncRequest; nothing runs", async () => {
    const strict = appFor(api.url, { sync: { allowAt: false } });
    expect(await sync(strict)).toMatchObject({
      status: 400,
      json: { errors: [{ loc: "body.at", msg: "is not allowed: SVC_REPORTING_SYNC_ALLOW_AT is false" }] },
    });
    const app = appFor(api.url);
    for (const body of [{ at: "yesterday" }, { at: "2026-02-30T00:00:00Z" }, [], { cloud: "x" }, null]) {
      expect({ body, status: (await sync(app, body)).status }).toEqual({ body, status: 400 });
    }
    const raw = await call(app, "POST", "/internal/sync/cloud-1", { token: testInternalToken, raw: "{" });
    expect(raw.status).toBe(400);
    expect(await runs()).toEqual([]);
  });

  test("409 while another process holds the cloud; the run after it is free", async () => {
    const app = appFor(api.url);
    const other = openDatabase(db.url, { max: 2 });
    try {
      const held = Promise.withResolvers<void>();
      const taken = Promise.withResolvers<void>();
      const holder = withSyncLock(other.sql, "cloud-1", async () => {
        taken.resolve();
        await held.promise;
      });
      await taken.promise;
      expect(await sync(app)).toMatchObject({
        status: 409,
        json: { type: "urn:svc:error:conflict", detail: "another sync of cloud cloud-1 is running" },
      });
      held.resolve();
      await holder;
      expect((await sync(app)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  test("409 for a second run during the first, through the same server", async () => {
    const held = Promise.withResolvers<void>();
    const listing = Promise.withResolvers<void>();
    await throughProxy(
      ({ path }) => {
        if (!path.startsWith("/image/")) return null;
        listing.resolve();
        return { waitFor: held.promise };
      },
      async (proxy) => {
        const app = appFor(proxy.url);
        // The first run holds the cloud while the platform keeps its image listing back.
        const first = sync(app);
        await listing.promise;
        expect(await sync(app)).toMatchObject({
          status: 409,
          json: { detail: "another sync of cloud cloud-1 is running" },
        });
        held.resolve();
        expect((await first).status).toBe(200);
      },
    );
    expect((await runs()).map((r) => r.status)).toEqual(["succeeded"]);
  });
});

describe("POST /internal/sync/{cloud} faults", () => {
  test("a platform slower than the budget: 500 naming the run, its row failed, nothing written", async () => {
    await throughProxy(
      ({ path }) => (path.startsWith("/volume/v3/volumes") ? { delayMs: 2500 } : null),
      async (proxy) => {
        const app = appFor(proxy.url, { sync: { allowAt: true, settleS: 0, budgetS: 1 } });
        const answer = await sync(app);
        const [row] = await db.sql`select id, status, error from sync_runs`;
        expect(answer).toMatchObject({
          status: 500,
          json: { detail: `sync run ${row?.id} of cloud cloud-1 failed: the budget of 1 s ran out` },
        });
        expect(row).toMatchObject({ status: "failed", error: "the budget of 1 s ran out" });
      },
    );
    expect(await countEvents()).toBe(0);
  });

  test("a platform down mid-run: 500, its row failed naming the listing, nothing written", async () => {
    await throughProxy(
      ({ path }) => (path.startsWith("/load-balancer/") ? "down" : null),
      async (proxy) => {
        const answer = await sync(appFor(proxy.url));
        // Listings run in parallel: whichever the cut reaches first names itself.
        const error = new RegExp(`^GET ${proxy.url}/\\S+ did not answer$`);
        expect(answer.status).toBe(500);
        const [row] = await runs();
        expect(row?.status).toBe("failed");
        expect(String(row?.error)).toMatch(error);
        expect(String((answer.json as { detail: string }).detail)).toEndWith(String(row?.error));
      },
    );
    expect(await countEvents()).toBe(0);
  });

  test("a token refused mid-run is renewed; refused again the run fails and writes nothing", async () => {
    let refusals = 2;
    await throughProxy(
      ({ path }) => (path.startsWith("/network/") && refusals-- > 0 ? { status: 401 } : null),
      async (proxy) => {
        const answer = await sync(appFor(proxy.url));
        expect(answer.status).toBe(500);
        expect(String((answer.json as { detail: string }).detail)).toEndWith(
          `GET ${proxy.url}/network/v2.0/floatingips answered 401`,
        );
        expect(await countEvents()).toBe(0);
        refusals = 1;
        expect((await sync(appFor(proxy.url))).status).toBe(200);
      },
    );
    expect(await countEvents()).toBeGreaterThan(0);
  });
});
