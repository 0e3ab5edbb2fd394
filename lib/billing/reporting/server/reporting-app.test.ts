import { beforeEach, describe, expect, test } from "bun:test";
import { openApiProblems } from "../../../../harness/http/openapi-problems.ts";
import { promtoolLint } from "../../../../harness/metrics/promtool.ts";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import { buildTestApp, call, type TestAppOptions } from "../../../../harness/reporting/reporting-test-app.ts";
import { ForbiddenError } from "../../../foundation/errors/svc-error.ts";
import { issueApiToken, issueIngestCredential, revokeCredential } from "../auth/credential-store.ts";
import { reportingDocument } from "../contract/reporting-contract.ts";

const db = reportingDatabaseOfFile();

const build = (options: TestAppOptions = {}) => buildTestApp(db, options);

const actor = "test";
let ingestSecret: string;
let readerSecret: string;

beforeEach(async () => {
  await db.reset();
  ingestSecret = (await issueIngestCredential(db.db, { platform: "platform_a", cloud: "c1", actor })).secret;
  readerSecret = (await issueApiToken(db.db, { role: "reader", actor })).secret;
});

function event(id: string, over: Record<string, unknown> = {}) {
  return {
    event_id: id,
    timestamp: "2026-11-01T10:00:00Z",
    event_type: "compute.instance.create.end",
    platform: "platform_a",
    cloud: "c1",
    resource_type: "instance",
    resource_id: `i-${id}`,
    project_id: "p1",
    payload: { state: "active", size: { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" } },
    ...over,
  };
}

const unauthorized = (detail: string) => ({
  type: "urn:svc:error:unauthorized",
  title: "No usable credential",
  status: 401,
  detail,
});

describe("POST /api/v1/events", () => {
  test("one event or an array; 200 IngestResult with duplicates and rejections", async () => {
    const { app } = build();
    const one = await call(app, "POST", "/api/v1/events", { token: ingestSecret, body: event("a") });
    expect(one).toMatchObject({ status: 200, json: { accepted: 1, duplicates: 0, rejected: [] } });
    expect(one.requestId).toBeTruthy();
    const many = await call(app, "POST", "/api/v1/events", {
      token: ingestSecret,
      body: [
        event("a"),
        event("b"),
        event("c", { cloud: "c2" }),
        event("d", { event_type: "x".repeat(600) }),
      ],
    });
    expect(many.status).toBe(200);
    expect(many.json).toEqual({
      accepted: 1,
      duplicates: 1,
      rejected: [
        { index: 2, event_id: "c", reason: "outside the (platform, cloud) of the credential", errors: [] },
        {
          index: 3,
          event_id: "d",
          reason: "the event breaks the member rules",
          errors: [{ loc: "body.3.event_type", msg: "must be at most 512 characters" }],
        },
      ],
    });
    const [counts] =
      await db.sql`select (select count(*)::int from events) as e, (select count(*)::int from rejected_events) as r,
      (select count(*)::int from audit_log where action = 'events.scope_violation') as a`;
    expect(counts).toEqual({ e: 2, r: 1, a: 1 });
  });

  test("401 without a credential, with an API token, with a revoked credential", async () => {
    const { app } = build();
    expect(await call(app, "POST", "/api/v1/events", { body: event("a") })).toMatchObject({
      status: 401,
      type: "application/problem+json",
      json: unauthorized("an ingest credential is required (Authorization: Bearer)"),
    });
    expect(
      await call(app, "POST", "/api/v1/events", { token: readerSecret, body: event("a") }),
    ).toMatchObject({
      status: 401,
      json: unauthorized("the bearer token is not an active ingest credential"),
    });
    expect(
      await call(app, "POST", "/api/v1/events", { token: "internal-secret", body: event("a") }),
    ).toMatchObject({
      status: 401,
    });
    const cred = await issueIngestCredential(db.db, { platform: "platform_a", cloud: "c1", actor });
    await revokeCredential(db.db, "ingest", cred.id, actor);
    expect((await call(app, "POST", "/api/v1/events", { token: cred.secret, body: event("a") })).status).toBe(
      401,
    );
  });

  test("413 above 1000 items, nothing stored; 400 for a body that is not an event or an array", async () => {
    const { app } = build();
    const big = Array.from({ length: 1001 }, (_, i) => event(`e${i}`));
    expect(await call(app, "POST", "/api/v1/events", { token: ingestSecret, body: big })).toMatchObject({
      status: 413,
      type: "application/problem+json",
      json: {
        type: "urn:svc:error:payload_too_large",
        status: 413,
        detail: "a batch holds at most 1000 events; this one holds 1001",
      },
    });
    const [stored] = await db.sql`select count(*)::int as n from events`;
    expect(stored?.n).toBe(0);
    const exactly = Array.from({ length: 1000 }, (_, i) => event(`e${i}`));
    expect(
      (await call(app, "POST", "/api/v1/events", { token: ingestSecret, body: exactly })).json,
    ).toMatchObject({ accepted: 1000 });
    expect(await call(app, "POST", "/api/v1/events", { token: ingestSecret, body: 42 })).toMatchObject({
      status: 400,
      json: {
        type: "urn:svc:error:validation",
        status: 400,
        errors: [{ loc: "body", msg: "must be an object or an array" }],
      },
    });
    expect(
      await call(app, "POST", "/api/v1/events", { token: ingestSecret, raw: "{not json" }),
    ).toMatchObject({
      status: 400,
      json: { type: "urn:svc:error:validation" },
    });
  });

  test("the body: 415 for a declared type that is not JSON, read when none is declared, 400 when nested past 512 levels", async () => {
    const { app } = build();
    const body = JSON.stringify([event("m")]);
    /** The same body posted under `contentType`, with the ingest credential unless `token` is null. */
    const postAs = (contentType: string, token: string | null = ingestSecret) =>
      call(app, "POST", "/api/v1/events", {
        ...(token === null ? {} : { token }),
        raw: body,
        headers: { "content-type": contentType },
      });
    for (const contentType of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded"]) {
      expect(await postAs(contentType)).toMatchObject({
        status: 415,
        type: "application/problem+json",
        json: {
          type: "urn:svc:error:unsupported_media_type",
          status: 415,
          detail: "the body must be JSON (Content-Type: application/json)",
        },
      });
    }
    // The credential comes first: without one the media type is not even looked at.
    expect((await postAs("text/plain", null)).status).toBe(401);
    expect(await postAs("")).toMatchObject({ status: 200, json: { accepted: 1 } });
    expect(await postAs("application/json; charset=utf-8")).toMatchObject({
      status: 200,
      json: { duplicates: 1 },
    });

    const tooDeep = `[${'{"a":['.repeat(50_000)}${"]}".repeat(50_000)}]`;
    expect(await call(app, "POST", "/api/v1/events", { token: ingestSecret, raw: tooDeep })).toMatchObject({
      status: 400,
      json: {
        type: "urn:svc:error:validation",
        detail: "the request body nests deeper than 512 levels",
        errors: [{ loc: "body", msg: "must not nest objects and arrays more than 512 levels deep" }],
      },
    });
    // Deeper than an event may be, shallow enough to read: refused alone and dead-lettered as sent.
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    const deepItem = event("n", { payload: { state: "active", size: { vcpus: 1 }, provider: { deep } } });
    const mixed = await call(app, "POST", "/api/v1/events", {
      token: ingestSecret,
      body: [deepItem, event("o")],
    });
    expect(mixed.json).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [
        {
          index: 0,
          event_id: "n",
          reason: "the event breaks the member rules",
          errors: [
            { loc: "body.0.payload", msg: "must not nest objects and arrays more than 32 levels deep" },
          ],
        },
      ],
    });
    const [dead] = await db.sql`select raw_body from rejected_events`;
    expect(JSON.parse(dead?.raw_body)).toEqual(deepItem);
  });

  test("auth disabled: no credential needed and no scope applies", async () => {
    const { app } = build({ mode: "disabled" });
    const out = await call(app, "POST", "/api/v1/events", { body: event("z", { cloud: "anywhere" }) });
    expect(out).toMatchObject({ status: 200, json: { accepted: 1 } });
  });

  test("strict size schema mode refuses sizes of unregistered pairs", async () => {
    const { app } = build({ requireSizeSchema: true });
    const out = await call(app, "POST", "/api/v1/events", {
      token: ingestSecret,
      body: event("g", { resource_type: "gadget", payload: { state: "on", size: { n: 1 } } }),
    });
    expect(out.json).toEqual({
      accepted: 0,
      duplicates: 0,
      rejected: [
        {
          index: 0,
          event_id: "g",
          reason: "no size schema is registered for its (platform, resource_type) and one is required",
          errors: [{ loc: "body.payload.size", msg: "has no registered schema" }],
        },
      ],
    });
  });
});

describe("POST /internal/projection/rebuild", () => {
  test("internal token only; filter checked; answers the counts", async () => {
    const { app } = build();
    await call(app, "POST", "/api/v1/events", { token: ingestSecret, body: [event("a"), event("b")] });
    /** A rebuild of `body` under `token` (the internal one unless given; null: none). */
    const rebuild = (body: object, token: string | null = "internal-secret") =>
      call(app, "POST", "/internal/projection/rebuild", { ...(token === null ? {} : { token }), body });
    expect(await rebuild({}, null)).toMatchObject({
      status: 401,
      json: unauthorized("the internal token is required (Authorization: Bearer)"),
    });
    expect((await rebuild({}, ingestSecret)).status).toBe(401);
    expect((await rebuild({}, readerSecret)).status).toBe(401);
    expect(await rebuild({ cloud: "c1", resource_id: "i-a" })).toMatchObject({
      status: 200,
      json: { resources: 1, events: 1 },
    });
    expect(await rebuild({ clod: "c1", cloud: "" })).toMatchObject({
      status: 400,
      json: {
        type: "urn:svc:error:validation",
        errors: [
          {
            loc: "body.clod",
            msg: "is not a member (its members are cloud, resource_type, resource_id, project_id)",
          },
          { loc: "body.cloud", msg: "must be a string of 1 to 512 characters" },
        ],
      },
    });
  });
});

describe("API tokens", () => {
  test("GET /api/v1/resource-types: the seven seeded pairs for any role; other schemes are 401", async () => {
    const { app } = build();
    const ok = await call(app, "GET", "/api/v1/resource-types", { token: readerSecret });
    expect(ok.status).toBe(200);
    const body = ok.json as { items: { platform: string; resource_type: string }[]; next_cursor: null };
    expect(body.items.map((i) => `${i.platform}/${i.resource_type}`)).toEqual([
      "platform_a/floating_ip",
      "platform_a/image",
      "platform_a/instance",
      "platform_a/loadbalancer",
      "platform_a/volume",
      "platform_a/volume_backup",
      "platform_a/volume_snapshot",
    ]);
    expect(body.next_cursor).toBeNull();
    expect((await call(app, "GET", "/api/v1/resource-types", { token: ingestSecret })).status).toBe(401);
    expect((await call(app, "GET", "/api/v1/resource-types", { token: "internal-secret" })).status).toBe(401);
    expect((await call(app, "GET", "/api/v1/resource-types")).status).toBe(401);
  });

  test("a role below the operation's is 403", async () => {
    const { auth } = build();
    const request = new Request("http://localhost/x", {
      headers: { authorization: `Bearer ${readerSecret}` },
    });
    await expect(auth.api(request, "admin")).rejects.toBeInstanceOf(ForbiddenError);
    await expect(auth.api(request, "read_all")).rejects.toThrow(
      "this operation needs role read_all or above",
    );
    const admin = await issueApiToken(db.db, { role: "admin", actor });
    const adminRequest = new Request("http://localhost/x", {
      headers: { authorization: `Bearer ${admin.secret}` },
    });
    expect(await auth.api(adminRequest, "read_all")).toMatchObject({ role: "admin", projectIds: null });
  });
});

describe("the contract", () => {
  test("the served document is the generated one and passes the OpenAPI 3.0 schema; no credential", async () => {
    const { app } = build();
    const served = await call(app, "GET", "/api/v1/openapi.json");
    expect(served.status).toBe(200);
    expect(served.json).toEqual(reportingDocument());
    expect(await openApiProblems(served.json)).toEqual([]);
  });

  test("the interactive page and its assets come from local files", async () => {
    const { app } = build();
    const page = await call(app, "GET", "/api/v1/docs");
    expect(page.status).toBe(200);
    expect(String(page.json)).toContain("/api/v1/docs/assets/swagger-ui-bundle.js");
    expect(String(page.json)).toContain('"/api/v1/openapi.json"');
    expect(String(page.json)).not.toMatch(/https?:\/\//);
    const asset = await app.handle(new Request("http://localhost/api/v1/docs/assets/swagger-ui-bundle.js"));
    expect(asset.status).toBe(200);
    expect((await call(app, "GET", "/api/v1/docs/assets/..%2Fpackage.json")).status).toBe(404);
  });

  test("every served route is in the document", () => {
    const { app } = build();
    const documented = new Set(
      Object.entries((reportingDocument() as { paths: Record<string, object> }).paths).flatMap(
        ([path, methods]) =>
          Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`),
      ),
    );
    const served = app.routes
      .map((r) => `${r.method} ${r.path}`)
      .filter((r) => !r.includes("/api/v1/docs") && !r.endsWith("/api/v1/openapi.json"));
    expect(served.filter((r) => !documented.has(r))).toEqual([]);
  });
});

describe("probes and metrics", () => {
  test("probes answer text/plain without a credential", async () => {
    const { app } = build();
    expect(await call(app, "GET", "/readyz")).toMatchObject({ status: 200, json: "ready\n" });
    expect(await call(app, "GET", "/healthz")).toMatchObject({ status: 200, json: "ok\n" });
  });

  test("/metrics carries the nine svc_ series and passes promtool; disabled it is 404", async () => {
    const { app } = build();
    await call(app, "POST", "/api/v1/events", {
      token: ingestSecret,
      body: [event("a"), event("u", { resource_type: "gadget", payload: { state: "on", size: { n: 1 } } })],
    });
    const metrics = await call(app, "GET", "/metrics");
    expect(metrics.status).toBe(200);
    const names = new Set(
      String(metrics.json)
        .split("\n")
        .filter((l) => l.startsWith("# TYPE svc_"))
        .map((l) => l.split(" ")[2]),
    );
    expect([...names].sort()).toEqual([
      "svc_current_resources",
      "svc_ingest_batch_duration_seconds",
      "svc_ingest_events_total",
      "svc_ingest_rejected_total",
      "svc_ingest_unvalidated_size_total",
      "svc_projection_rebuild_duration_seconds",
      "svc_projection_refolds_total",
      "svc_sync_duration_seconds",
      "svc_sync_runs_total",
    ]);
    expect(String(metrics.json)).toContain(
      'svc_ingest_unvalidated_size_total{platform="platform_a",resource_type="gadget"} 1',
    );
    expect(String(metrics.json)).toContain("process_cpu_seconds_total");
    expect(promtoolLint(String(metrics.json))).toBe("");
    const off = build({ metricsEnabled: false });
    expect((await call(off.app, "GET", "/metrics")).status).toBe(404);
  });
});
