import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkPaging, matchesEach, queryOf, walkPages } from "../../../../harness/reporting/page-walk.ts";
import { apiToken, call, reportingTestFile } from "../../../../harness/reporting/reporting-test-app.ts";

const t = reportingTestFile({ tokens: ["admin", "reader", "read_all"] });

const post = (body: unknown, token = t.tokens.admin) =>
  call(t.app, "POST", "/api/v1/projects", { token, body });

async function register(cloud: string, externalId: string, more: Record<string, unknown> = {}) {
  const out = await post({ platform: "platform_a", cloud, external_id: externalId, ...more });
  expect(out.status).toBe(201);
  return out.json as { id: string };
}

describe("POST /api/v1/projects", () => {
  test("201 with Location; the row reads back; an audit row names the token", async () => {
    const out = await post({
      platform: "platform_a",
      cloud: "c1",
      external_id: "p1",
      name: "Project one",
      metadata: { created_by: "test" },
    });
    expect(out.status).toBe(201);
    const project = out.json as Record<string, unknown>;
    expect(project).toMatchObject({
      platform: "platform_a",
      cloud: "c1",
      external_id: "p1",
      name: "Project one",
      metadata: { created_by: "test" },
    });
    expect(out.location).toBe(`/api/v1/projects/${project.id}`);
    const read = await call(t.app, "GET", out.location ?? "", { token: t.tokens.read_all });
    expect(read).toMatchObject({ status: 200, json: project });
    const audit = await t.db.sql`select action, target from audit_log where action = 'projects.create'`;
    expect([...audit]).toEqual([{ action: "projects.create", target: project.id }]);
  });

  test("409 on a held (cloud, external_id), nothing replaced; another cloud may use the same id", async () => {
    await register("c1", "p1", { name: "first" });
    const again = await post({ platform: "platform_a", cloud: "c1", external_id: "p1", name: "second" });
    expect(again).toMatchObject({
      status: 409,
      type: "application/problem+json",
      json: { type: "urn:svc:error:conflict" },
    });
    const [row] = await t.db.sql`select name from projects where cloud = 'c1'`;
    expect(row?.name).toBe("first");
    await register("c2", "p1");
    const [count] = await t.db.sql`select count(*)::int as n from projects`;
    expect(count?.n).toBe(2);
  });

  test("two registrations of one pair at once store one row", async () => {
    const body = { platform: "platform_a", cloud: "c1", external_id: "race" };
    const outs = await Promise.all(Array.from({ length: 6 }, () => post(body)));
    expect(outs.map((o) => o.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  test("virtual projects: meta and partner keep their own cloud (422, no write)", async () => {
    await register("c1", "x").catch(() => {});
    expect((await post({ platform: "meta", cloud: "meta", external_id: "m" })).status).toBe(201);
    expect((await post({ platform: "partner", cloud: "partner", external_id: "acme" })).status).toBe(201);
    const mismatch = await post({ platform: "meta", cloud: "c1", external_id: "m2" });
    expect(mismatch).toMatchObject({
      status: 422,
      json: {
        type: "urn:svc:error:unprocessable",
        errors: [{ loc: "body.cloud", msg: "a meta project must have cloud meta" }],
      },
    });
    const borrowed = await post({ platform: "platform_a", cloud: "partner", external_id: "p" });
    expect(borrowed).toMatchObject({
      status: 422,
      json: { errors: [{ loc: "body.cloud", msg: "only a partner project may use cloud partner" }] },
    });
    const [count] = await t.db.sql`select count(*)::int as n from projects`;
    expect(count?.n).toBe(3);
  });

  test("400 for a body the contract refuses, every location named", async () => {
    const out = await post({ platform: "", cloud: 5, name: "x".repeat(513), metadata: [], extra: true });
    expect(out.status).toBe(400);
    expect((out.json as { errors: { loc: string }[] }).errors.map((e) => e.loc)).toEqual([
      "body.cloud",
      "body.external_id",
      "body.extra",
      "body.metadata",
      "body.name",
      "body.platform",
    ]);
    expect(
      (await call(t.app, "POST", "/api/v1/projects", { token: t.tokens.admin, raw: "{nope" })).json,
    ).toMatchObject({
      type: "urn:svc:error:validation",
      errors: [{ loc: "body", msg: "must be a JSON document" }],
    });
    const long = await post({ platform: "platform_a", cloud: "€".repeat(500), external_id: "€".repeat(500) });
    expect(long).toMatchObject({ status: 400, json: { errors: [{ loc: "body.external_id" }] } });
  });

  test("admin only: no credential 401 (before the body is judged), lower roles 403", async () => {
    expect((await call(t.app, "POST", "/api/v1/projects", { raw: "{nope" })).status).toBe(401);
    expect(
      (await post({ platform: "platform_a", cloud: "c1", external_id: "p" }, t.tokens.read_all)).status,
    ).toBe(403);
    expect(
      (await post({ platform: "platform_a", cloud: "c1", external_id: "p" }, t.tokens.reader)).status,
    ).toBe(403);
  });
});

describe("GET /api/v1/projects", () => {
  test("(cloud, external_id) order, filters, and pages that walk the whole list", async () => {
    for (const [cloud, id] of [
      ["c2", "a"],
      ["c1", "b"],
      ["c1", "a"],
      ["c3", "z"],
      ["c1", "c"],
    ] as const) {
      await register(cloud, id, { name: `${cloud}/${id}` });
    }
    const all = await call(t.app, "GET", "/api/v1/projects", { token: t.tokens.reader });
    const keys = (all.json as { items: { cloud: string; external_id: string }[] }).items.map(
      (p) => `${p.cloud}/${p.external_id}`,
    );
    expect(keys).toEqual(["c1/a", "c1/b", "c1/c", "c2/a", "c3/z"]);
    const walked = (
      await walkPages<{ cloud: string; external_id: string }>(t.app, "/api/v1/projects", t.tokens.reader, 2)
    ).map((p) => `${p.cloud}/${p.external_id}`);
    expect(walked).toEqual(keys);
    const filtered = await call(t.app, "GET", "/api/v1/projects?cloud=c1&external_id=b", {
      token: t.tokens.reader,
    });
    expect((filtered.json as { items: unknown[] }).items).toHaveLength(1);
    const [first] = (all.json as { items: object[] }).items;
    expect(Object.keys(first ?? {}).sort()).toEqual(["cloud", "created_at", "external_id", "id", "platform"]);
    const full = await call(t.app, "GET", "/api/v1/projects?limit=1", { token: t.tokens.read_all });
    expect((full.json as { items: { name: string }[] }).items[0]?.name).toBe("c1/a");
  });

  test("property: for random registries, filters and limits, the pages are exactly the ordered filtered set", async () => {
    type Project = { platform: string; cloud: string; external_id: string };
    const projectKey = (p: Project) => `${p.cloud} ${p.external_id}`;
    await checkPaging({
      app: () => t.app,
      token: () => t.tokens.reader,
      data: fc.uniqueArray(
        fc.record({
          platform: fc.constantFrom("platform_a", "platform_b"),
          cloud: fc.constantFrom("c1", "c2", "c3"),
          external_id: fc.integer({ min: 0, max: 99 }).map((n) => `p${String(n).padStart(2, "0")}`),
        }),
        { selector: projectKey, maxLength: 30 },
      ),
      store: async (projects) => {
        await t.db.sql`truncate projects cascade`;
        for (const p of projects)
          await t.db.sql`insert into projects (platform, cloud, external_id)
            values (${p.platform}, ${p.cloud}, ${p.external_id})`;
      },
      filter: fc.record(
        {
          platform: fc.constantFrom("platform_a", "platform_b"),
          cloud: fc.constantFrom("c1", "c2", "c3"),
          external_id: fc.constantFrom("p00", "p01", "p50"),
        },
        { requiredKeys: [] },
      ),
      path: (filter) => `/api/v1/projects?${queryOf(filter)}`,
      expected: (projects, f) =>
        projects
          .filter((p) => matchesEach(p, f, ["platform", "cloud", "external_id"]))
          .map(projectKey)
          .sort(),
      key: projectKey,
    });
  });

  test("a scoped token lists its own projects only", async () => {
    const a = await register("c1", "a");
    await register("c1", "b");
    const scoped = await apiToken(t.db, "reader", [a.id]);
    const page = await call(t.app, "GET", "/api/v1/projects", { token: scoped });
    expect((page.json as { items: { id: string }[] }).items.map((p) => p.id)).toEqual([a.id]);
  });

  test("limit 0, 1001, abc and a forged cursor are 400", async () => {
    for (const qs of ["limit=0", "limit=1001", "limit=abc", "cursor=bm9wZQ", "cursor=***", "cloud="]) {
      const out = await call(t.app, "GET", `/api/v1/projects?${qs}`, { token: t.tokens.reader });
      expect({ qs, status: out.status }).toEqual({ qs, status: 400 });
    }
  });
});

describe("GET /api/v1/projects/{id}", () => {
  test("role read_all; unknown and out-of-scope are the identical 404; a bad id is 400", async () => {
    const a = await register("c1", "a");
    const b = await register("c1", "b");
    expect((await call(t.app, "GET", `/api/v1/projects/${a.id}`, { token: t.tokens.reader })).status).toBe(
      403,
    );
    const scoped = await apiToken(t.db, "read_all", [a.id]);
    expect((await call(t.app, "GET", `/api/v1/projects/${a.id}`, { token: scoped })).status).toBe(200);
    const outside = await call(t.app, "GET", `/api/v1/projects/${b.id}`, { token: scoped });
    const unknownId = "00000000-0000-4000-8000-000000000000";
    const unknown = await call(t.app, "GET", `/api/v1/projects/${unknownId}`, { token: scoped });
    expect(outside.status).toBe(404);
    expect({ ...(outside.json as object), detail: "" }).toEqual({ ...(unknown.json as object), detail: "" });
    expect((outside.json as { detail: string }).detail).toBe(`no project ${b.id}`);
    expect(
      (await call(t.app, "GET", "/api/v1/projects/nope", { token: t.tokens.read_all })).json,
    ).toMatchObject({
      status: 400,
      errors: [{ loc: "path.id" }],
    });
  });
});
