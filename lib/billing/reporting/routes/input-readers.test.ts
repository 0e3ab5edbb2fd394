import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPlatformClouds } from "../../../../harness/reporting/platform-cloud-files.ts";
import {
  apiToken,
  buildTestApp,
  call,
  reportingTestFile,
  type TestApp,
  testInternalToken,
} from "../../../../harness/reporting/reporting-test-app.ts";
import { unauthenticatedIngest } from "../../../../harness/reporting/unauthenticated-ingest.ts";
import { volumeEvent } from "../../../../harness/reporting/volume-event.ts";
import { issueIngestCredential } from "../auth/credential-store.ts";
import { ingestItems } from "../ingest/ingest-batch.ts";

/**
 * Issue 28 items 1 to 4, on every Reporting API route that takes a date-time or stores text: the
 * exact answer (status, problem type, member named, what it accepts) and, for a refused request,
 * every stored row as it was.
 */

const t = reportingTestFile();
let admin: string;
let app: TestApp;
let dir: string;

const nul = "must not contain the NUL character";
const lone = "must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)";
const range = "must fall within the years 0001 to 9999 once its offset is applied (UTC)";
const fraction = "must give at most 9 digits of a second's fraction";
const offset = "must have an offset from -23:59 to +23:59";
const longFraction = `2026-01-01T00:00:00.${"1".repeat(200)}Z`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-input-readers-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(async () => {
  admin = await apiToken(t.db, "admin");
  // A cloud the sync route knows, so its body is read; a refused body never reaches the platform.
  const clouds = loadPlatformClouds(dir, [{ name: "cloud-1", url: "http://127.0.0.1:9" }]);
  app = buildTestApp(t.db, { clouds, sync: { allowAt: true } }).app;
});

/** Every row a refused request could have touched. */
async function stored() {
  const { sql } = t.db;
  return {
    projects: await sql`select id, platform, cloud, external_id, name, metadata from projects order by id`,
    relations:
      await sql`select id, metadata, valid_from::text, valid_to::text from project_relations order by id`,
    audit: await sql`select id, action, target from audit_log order by id`,
    events: await sql`select event_id, timestamp::text from events order by event_id`,
    rejected: await sql`select id from rejected_events order by id`,
    syncRuns: await sql`select id from sync_runs order by id`,
  };
}

async function project(externalId: string): Promise<string> {
  const out = await call(app, "POST", "/api/v1/projects", {
    token: admin,
    body: { platform: "platform_a", cloud: "c1", external_id: externalId },
  });
  return (out.json as { id: string }).id;
}

/** The exact 400 answer naming each member. */
const refusedAt = (part: "body" | "query" | "path", errors: { loc: string; msg: string }[]) => ({
  status: 400,
  json: {
    type: "urn:svc:error:validation",
    title: "The request is not valid",
    status: 400,
    detail: `the request ${part} does not match the contract`,
    errors,
  },
});

/** Sends `request` and checks it is refused exactly so, with nothing stored changed. */
async function refused(
  request: { method: string; path: string; body?: unknown; raw?: string; token?: string },
  answer: ReturnType<typeof refusedAt>,
) {
  const before = await stored();
  const out = await call(app, request.method, request.path, {
    token: request.token ?? admin,
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.raw === undefined ? {} : { raw: request.raw }),
  });
  expect({ status: out.status, json: out.json }).toEqual(answer);
  expect(await stored()).toEqual(before);
}

describe("item 1: lone surrogates (and NUL) in what the registry stores", () => {
  test("a project's name, metadata value and metadata member name: 400 at the member, nothing stored", async () => {
    const create = (raw: string) => ({ method: "POST", path: "/api/v1/projects", raw });
    const base = '"platform":"platform_a","cloud":"c1","external_id":"x"';
    await refused(
      create(`{${base},"name":"a\\ud800"}`),
      refusedAt("body", [{ loc: "body.name", msg: lone }]),
    );
    await refused(
      create(`{${base},"metadata":{"k":["ok","\\udfff"]}}`),
      refusedAt("body", [{ loc: "body.metadata.k.1", msg: lone }]),
    );
    await refused(
      create(`{${base},"metadata":{"\\ud800k":1}}`),
      refusedAt("body", [{ loc: "body.metadata.\\ud800k", msg: `has a member name that ${lone}` }]),
    );
    await refused(
      create(`{${base},"external_id":"x\\u0000"}`),
      refusedAt("body", [{ loc: "body.external_id", msg: nul }]),
    );
    // A surrogate pair is one character, stored as sent.
    const ok = await call(app, "POST", "/api/v1/projects", {
      token: admin,
      body: { platform: "platform_a", cloud: "c1", external_id: "x", name: "😀", metadata: { "😀": "😀" } },
    });
    expect(ok).toMatchObject({ status: 201, json: { name: "😀", metadata: { "😀": "😀" } } });
  });

  test("a relation's metadata and an adjustment's description, on create and update", async () => {
    const [a, b] = [await project("a"), await project("b")];
    await refused(
      {
        method: "POST",
        path: `/api/v1/projects/${a}/relations`,
        raw: `{"target_id":"${b}","relation_type":"infrastructure_tenant","metadata":{"pricing_adjustments":[{"type":"discount","rate":"0.1","scope":"all","description":"\\ud800"}]}}`,
      },
      refusedAt("body", [{ loc: "body.metadata.pricing_adjustments.0.description", msg: lone }]),
    );
    const made = await call(app, "POST", `/api/v1/projects/${a}/relations`, {
      token: admin,
      body: { target_id: b, relation_type: "infrastructure_tenant", metadata: { note: "ok" } },
    });
    const relation = (made.json as { id: string }).id;
    await refused(
      {
        method: "PATCH",
        path: `/api/v1/projects/${a}/relations/${relation}`,
        raw: '{"metadata":{"note":"\\udc00","\\u0000":1}}',
      },
      refusedAt("body", [
        { loc: "body.metadata.note", msg: lone },
        { loc: "body.metadata.\\u0000", msg: `has a member name that ${nul}` },
      ]),
    );
  });

  test("a path segment of bytes that are not UTF-8 (a surrogate's CESU-8 form) is refused at the member", async () => {
    await refused(
      { method: "POST", path: "/internal/sync/%ED%A0%80", body: {}, token: testInternalToken },
      refusedAt("path", [{ loc: "path.cloud", msg: "must be percent-encoded UTF-8 text" }]),
    );
    await refused(
      { method: "GET", path: "/api/v1/projects/%ED%A0%80" },
      refusedAt("path", [{ loc: "path.id", msg: "must be percent-encoded UTF-8 text" }]),
    );
  });

  test("a filter (query, rebuild body) with NUL is refused at the member", async () => {
    await refused(
      { method: "GET", path: "/api/v1/resources?cloud=c%00" },
      refusedAt("query", [{ loc: "query.cloud", msg: nul }]),
    );
    await refused(
      {
        method: "POST",
        path: "/internal/projection/rebuild",
        raw: '{"cloud":"\\ud800"}',
        token: testInternalToken,
      },
      refusedAt("body", [{ loc: "body.cloud", msg: lone }]),
    );
  });

  test("a body whose bytes are not UTF-8 is refused, never stored as U+FFFD", async () => {
    const before = await stored();
    const body = new Uint8Array([
      ...Buffer.from('{"platform":"platform_a","cloud":"c1","external_id":"x","name":"'),
      0xed,
      0xa0,
      0x80,
      0x22,
      0x7d,
    ]);
    const res = await app.handle(
      new Request("http://localhost/api/v1/projects", {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body,
      }),
    );
    expect({ status: res.status, json: await res.json() }).toEqual({
      status: 400,
      json: {
        type: "urn:svc:error:validation",
        title: "The request is not valid",
        status: 400,
        detail: "the request body is not UTF-8",
        errors: [{ loc: "body", msg: "must be UTF-8 text" }],
      },
    });
    expect(await stored()).toEqual(before);
  });
});

/** Every route member that takes a date-time, and how to send one value in it. */
async function dateTimeMembers(tag = "") {
  const [a, b] = [await project(`a${tag}`), await project(`b${tag}`)];
  const made = await call(app, "POST", `/api/v1/projects/${a}/relations`, {
    token: admin,
    body: { target_id: b, relation_type: "infrastructure_tenant", valid_from: "2020-01-01T00:00:00Z" },
  });
  const relation = (made.json as { id: string }).id;
  const q = (v: string) => encodeURIComponent(v);
  const ok = "2026-01-01T00:00:00Z";
  return [
    { loc: "query.from", send: (v: string) => ({ method: "GET", path: `/api/v1/events?from=${q(v)}` }) },
    { loc: "query.to", send: (v: string) => ({ method: "GET", path: `/api/v1/events?to=${q(v)}` }) },
    {
      loc: "query.from",
      send: (v: string) => ({ method: "GET", path: `/api/v1/rejected-events?from=${q(v)}` }),
    },
    { loc: "query.to", send: (v: string) => ({ method: "GET", path: `/api/v1/rejected-events?to=${q(v)}` }) },
    {
      loc: "query.from",
      send: (v: string) => ({ method: "GET", path: `/api/v1/projects/${a}/summary?from=${q(v)}&to=${ok}` }),
    },
    {
      loc: "query.to",
      send: (v: string) => ({
        method: "GET",
        path: `/api/v1/stats/events?group_by=cloud,event_type&interval=1d&from=${ok}&to=${q(v)}`,
      }),
    },
    {
      loc: "body.valid_from",
      send: (v: string) => ({
        method: "POST",
        path: `/api/v1/projects/${b}/relations`,
        body: { target_id: a, relation_type: "reseller_of", valid_from: v },
      }),
    },
    {
      loc: "body.valid_to",
      send: (v: string) => ({
        method: "PATCH",
        path: `/api/v1/projects/${a}/relations/${relation}`,
        body: { valid_to: v },
      }),
    },
    {
      loc: "body.at",
      send: (v: string) => ({
        method: "POST",
        path: "/internal/sync/cloud-1",
        body: { at: v },
        token: testInternalToken,
      }),
    },
  ];
}

describe("items 2 to 4: date-times on every route that takes one", () => {
  test("offsets past ±23:59, instants that shift out of 0001-9999, fractions past 9 digits: 400 at the member, nothing stored", async () => {
    const members = await dateTimeMembers();
    for (const [value, msg] of [
      ["2026-01-01T00:00:00+24:00", offset],
      ["0001-01-01T00:00:00+01:00", range],
      ["9999-12-31T23:00:00-01:00", range],
      [longFraction, fraction],
      ["2026-01-01T00:00:00.1234567890Z", fraction],
    ] as const) {
      for (const member of members) {
        const request = member.send(value);
        await refused(
          request,
          refusedAt(member.loc.startsWith("query") ? "query" : "body", [{ loc: member.loc, msg }]),
        );
      }
    }
  });

  test("offsets from ±16:00 to ±23:59 are instants like any other: answered, never a 500", async () => {
    for (const value of [
      "2026-01-01T00:00:00+16:00",
      "2026-01-01T00:00:00-23:59",
      "2026-01-01T00:00:00.123456789+23:59",
    ]) {
      const members = await dateTimeMembers(value);
      for (const member of members.filter((m) => m.loc !== "body.at" && m.loc !== "body.valid_to")) {
        const request = member.send(value);
        const out = await call(app, request.method, request.path, {
          token: admin,
          ...("body" in request ? { body: request.body } : {}),
        });
        expect(`${request.method} ${request.path}: ${out.status}`).toMatch(/: 20[01]$/);
      }
    }
  });

  test("an offset date-time is stored and compared as its UTC instant", async () => {
    const [a, b] = [await project("a"), await project("b")];
    const made = await call(app, "POST", `/api/v1/projects/${a}/relations`, {
      token: admin,
      body: { target_id: b, relation_type: "infrastructure_tenant", valid_from: "2026-01-01T00:00:00+16:00" },
    });
    expect(made).toMatchObject({ status: 201, json: { valid_from: "2025-12-31T08:00:00.000Z" } });
    const closed = await call(
      app,
      "PATCH",
      `/api/v1/projects/${a}/relations/${(made.json as { id: string }).id}`,
      {
        token: admin,
        body: { valid_to: "2026-01-01T00:00:00.9876-23:59" },
      },
    );
    expect(closed).toMatchObject({ status: 200, json: { valid_to: "2026-01-01T23:59:00.987Z" } });

    const out = await ingestItems(
      t.db,
      [
        volumeEvent("before", { timestamp: "2025-12-31T07:59:59.999Z" }),
        volumeEvent("at", { timestamp: "2025-12-31T08:00:00Z" }),
        volumeEvent("after", { timestamp: "2026-01-01T23:59:00Z" }),
      ],
      unauthenticatedIngest,
    );
    expect(out.result.rejected).toEqual([]);
    // [2026-01-01T00:00+16:00, 2026-01-01T00:00-23:59) is [2025-12-31T08:00Z, 2026-01-01T23:59Z).
    const page = await call(
      app,
      "GET",
      `/api/v1/events?from=${encodeURIComponent("2026-01-01T00:00:00+16:00")}&to=${encodeURIComponent("2026-01-01T00:00:00-23:59")}`,
      {
        token: admin,
      },
    );
    expect((page.json as { items: { event_id: string }[] }).items.map((e) => e.event_id)).toEqual(["at"]);
  });
});

describe("ingest takes its date-times and text through the same readers, item by item", () => {
  test("an offset past ±15:59 is stored as its instant; a long fraction and a lone surrogate refuse their item", async () => {
    const { secret } = await issueIngestCredential(t.db.db, {
      platform: "platform_a",
      cloud: "c1",
      actor: "t",
    });
    const out = await call(app, "POST", "/api/v1/events", {
      token: secret,
      body: [
        volumeEvent("east", { timestamp: "2026-01-01T00:00:00+16:00" }),
        volumeEvent("long", { timestamp: longFraction }),
        volumeEvent("lone", {
          timestamp: "2026-01-01T00:00:00Z",
          payload: { state: "on\ud800", size: { size_gb: 10, type: "ssd" } },
        }),
      ],
    });
    expect(out.json).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [
        {
          index: 1,
          event_id: "long",
          reason: "the event breaks the member rules",
          errors: [{ loc: "body.1.timestamp", msg: fraction }],
        },
        {
          index: 2,
          event_id: "lone",
          reason: "the event breaks the member rules",
          errors: [{ loc: "body.2.payload.state", msg: lone }],
        },
      ],
    });
    expect([...(await t.db.sql`select event_id, timestamp::text from events`)]).toEqual([
      { event_id: "east", timestamp: "2025-12-31 08:00:00+00" },
    ]);
  });
});

describe("issue 30 item 7: validation messages name the member and what it accepts", () => {
  test("an invalid interval on /api/v1/stats/events", async () => {
    const out = await call(
      app,
      "GET",
      "/api/v1/stats/events?group_by=cloud,event_type&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&interval=1w",
      {
        token: admin,
      },
    );
    expect({ status: out.status, json: out.json }).toEqual(
      refusedAt("query", [{ loc: "query.interval", msg: "must be one of 1h, 1d" }]),
    );
  });

  test("a missing, an unknown and an out-of-range member", async () => {
    const out = await call(app, "GET", "/api/v1/events?limit=0&colud=c1", { token: admin });
    expect({ status: out.status, json: out.json }).toEqual(
      refusedAt("query", [
        {
          loc: "query.colud",
          msg: "is not a member (its members are cloud, platform, project_id, resource_type, event_type, source, from, to, limit, cursor)",
        },
        { loc: "query.limit", msg: "must be an integer from 1 to 1000" },
      ]),
    );
    const missing = await call(app, "GET", "/api/v1/stats/resources", { token: admin });
    expect(missing.json).toMatchObject({ errors: [{ loc: "query.group_by", msg: "is required: a string" }] });
  });
});
