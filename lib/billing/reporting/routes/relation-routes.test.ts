import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkPaging, queryOf, walkPages } from "../../../../harness/reporting/page-walk.ts";
import {
  apiToken,
  buildTestApp,
  call,
  reportingTestFile,
} from "../../../../harness/reporting/reporting-test-app.ts";

const t = reportingTestFile({ tokens: ["admin"] });

async function project(externalId: string, platform = "platform_a"): Promise<string> {
  const cloud = platform === "platform_a" ? "c1" : platform;
  const out = await call(t.app, "POST", "/api/v1/projects", {
    token: t.tokens.admin,
    body: { platform, cloud, external_id: externalId },
  });
  expect(out.status).toBe(201);
  return (out.json as { id: string }).id;
}

const relate = (source: string, body: Record<string, unknown>, token = t.tokens.admin) =>
  call(t.app, "POST", `/api/v1/projects/${source}/relations`, { token, body });

/** POST an infrastructure_tenant relation from `source` to `target`, in force from `from` (or now). */
const tenancy = (source: string, target: string, from?: string) =>
  relate(source, {
    target_id: target,
    relation_type: "infrastructure_tenant",
    ...(from === undefined ? {} : { valid_from: from }),
  });

/** An infrastructure_tenant relation from `source` to `target` in force over [from, to). */
async function span(source: string, target: string, from: string, to: string) {
  const made = await tenancy(source, target, from);
  expect(made.status).toBe(201);
  const id = (made.json as { id: string }).id;
  const closed = await call(t.app, "PATCH", `/api/v1/projects/${source}/relations/${id}`, {
    token: t.tokens.admin,
    body: { valid_to: to },
  });
  expect(closed.status).toBe(200);
}

/** Every relation and audit row, to show a refused request changed nothing. */
async function storedRelations() {
  return {
    relations: await t.db.sql`select id, source_id, target_id, relation_type, metadata, valid_from, valid_to
      from project_relations order by id`,
    audit: await t.db.sql`select id, action, target from audit_log order by id`,
  };
}

const adjustments = [
  { type: "discount", rate: "0.1", scope: "all" },
  { type: "kickback", rate: "0.05", scope: "platform_a.instance", description: "reseller" },
];

describe("POST /api/v1/projects/{id}/relations", () => {
  test("201 with Location; the engine's columns hold what was sent; an audit row", async () => {
    const garden = await project("alpha");
    const tenant = await project("t1");
    const out = await relate(garden, {
      target_id: tenant,
      relation_type: "infrastructure_tenant",
      metadata: { created_by: "test", pricing_adjustments: adjustments },
      valid_from: "2026-11-01T00:00:00Z",
    });
    expect(out.status).toBe(201);
    const relation = out.json as { id: string };
    expect(out.location).toBe(`/api/v1/projects/${garden}/relations/${relation.id}`);
    expect(relation).toMatchObject({
      source_id: garden,
      target_id: tenant,
      relation_type: "infrastructure_tenant",
      valid_from: "2026-11-01T00:00:00.000Z",
      valid_to: null,
    });
    const [row] = await t.db.sql`select source_id::text, target_id::text, relation_type, metadata, valid_to
      from project_relations`;
    expect(row).toEqual({
      source_id: garden,
      target_id: tenant,
      relation_type: "infrastructure_tenant",
      metadata: { created_by: "test", pricing_adjustments: adjustments },
      valid_to: null,
    });
    const [audit] = await t.db
      .sql`select count(*)::int as n from audit_log where action = 'relations.create'`;
    expect(audit?.n).toBe(1);
  });

  test("an active triple cannot be created twice (409); after closing it, it can", async () => {
    const a = await project("a");
    const b = await project("b");
    const first = await tenancy(a, b, "2026-10-01T00:00:00Z");
    expect((await tenancy(a, b)).status).toBe(409);
    const id = (first.json as { id: string }).id;
    const closed = await call(t.app, "PATCH", `/api/v1/projects/${a}/relations/${id}`, {
      token: t.tokens.admin,
      body: { valid_to: "2026-11-01T00:00:00Z" },
    });
    expect(closed).toMatchObject({ status: 200, json: { valid_to: "2026-11-01T00:00:00.000Z" } });
    expect((await tenancy(a, b, "2026-10-15T00:00:00Z")).status).toBe(409);
    expect((await tenancy(a, b, "2026-11-01T00:00:00Z")).status).toBe(201);
  });

  test("pricing_adjustments: 422 with one error per violation, array-level errors, 65 elements as one", async () => {
    const a = await project("a");
    const b = await project("b");
    const bad = await relate(a, {
      target_id: b,
      relation_type: "infrastructure_tenant",
      metadata: {
        pricing_adjustments: [
          { type: "rebate", rate: "1.5", scope: "all" },
          { type: "discount", rate: "0.1", scope: "all", extra: 1 },
        ],
      },
    });
    expect(bad).toMatchObject({
      status: 422,
      json: {
        type: "urn:svc:error:unprocessable",
        errors: [
          { loc: "body.metadata.pricing_adjustments.0.type" },
          { loc: "body.metadata.pricing_adjustments.0.rate" },
          { loc: "body.metadata.pricing_adjustments.1.extra" },
        ],
      },
    });
    const many = Array.from({ length: 65 }, () => ({ type: "discount", rate: "0.1", scope: "all" }));
    const tooMany = await relate(a, {
      target_id: b,
      relation_type: "infrastructure_tenant",
      metadata: { pricing_adjustments: many },
    });
    expect((tooMany.json as { errors: unknown[] }).errors).toEqual([
      { loc: "body.metadata.pricing_adjustments", msg: "holds 65 adjustments; at most 64 are allowed" },
    ]);
    const notArray = await relate(a, {
      target_id: b,
      relation_type: "infrastructure_tenant",
      metadata: { pricing_adjustments: {} },
    });
    expect((notArray.json as { errors: { loc: string }[] }).errors.map((e) => e.loc)).toEqual([
      "body.metadata.pricing_adjustments",
    ]);
    const [count] = await t.db.sql`select count(*)::int as n from project_relations`;
    expect(count?.n).toBe(0);
  });

  test("unknown source 404; unknown, identical or non-virtual targets 422; bad bodies 400", async () => {
    const a = await project("a");
    const b = await project("b");
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect((await tenancy(unknown, b)).status).toBe(404);
    const cases: [Record<string, unknown>, string][] = [
      [{ target_id: unknown, relation_type: "infrastructure_tenant" }, "names no registered project"],
      [{ target_id: a, relation_type: "infrastructure_tenant" }, "a project cannot relate to itself"],
      [
        { target_id: b, relation_type: "managed_by" },
        "a managed_by relation reaches a virtual project (platform meta or partner)",
      ],
    ];
    for (const [body, msg] of cases) {
      expect(await relate(a, body)).toMatchObject({
        status: 422,
        json: { errors: [{ loc: "body.target_id", msg }] },
      });
    }
    const partner = await project("acme", "partner");
    expect((await relate(a, { target_id: partner, relation_type: "managed_by" })).status).toBe(201);
    const malformed = await relate(a, {
      target_id: "x",
      relation_type: "Bad Type",
      valid_from: "soon",
      more: 1,
    });
    expect((malformed.json as { errors: { loc: string }[] }).errors.map((e) => e.loc)).toEqual([
      "body.more",
      "body.relation_type",
      "body.target_id",
      "body.valid_from",
    ]);
  });

  test("admin only; no credential is 401", async () => {
    const a = await project("a");
    const b = await project("b");
    const body = { target_id: b, relation_type: "infrastructure_tenant" };
    expect((await relate(a, body, await apiToken(t.db, "read_all"))).status).toBe(403);
    expect((await call(t.app, "POST", `/api/v1/projects/${a}/relations`, { body })).status).toBe(401);
  });
});

describe("the cycle guard", () => {
  test("a relation closing a cycle over attributing types is refused; other types are not walked", async () => {
    const [a, b, c] = [await project("a"), await project("b"), await project("c")];
    expect((await tenancy(a, b)).status).toBe(201);
    expect((await tenancy(b, c)).status).toBe(201);
    const cycle = await tenancy(c, a);
    expect(cycle).toMatchObject({ status: 409, json: { type: "urn:svc:error:relation_cycle" } });
    expect((await relate(c, { target_id: a, relation_type: "reseller_of" })).status).toBe(201);
  });

  test("a back-dated relation closing a cycle over a past span is refused, and nothing is stored (issue 28, 7)", async () => {
    const [a, b] = [await project("a"), await project("b")];
    await span(a, b, "2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z");
    const before = await storedRelations();
    const back = await tenancy(b, a, "2020-06-01T00:00:00Z");
    expect(back).toMatchObject({
      status: 409,
      json: {
        type: "urn:svc:error:relation_cycle",
        status: 409,
        detail: `a infrastructure_tenant relation to ${a} from 2020-06-01T00:00:00.000Z would close a cycle of infrastructure_tenant relations in force together from 2020-06-01T00:00:00.000Z to 2021-01-01T00:00:00.000Z`,
      },
    });
    expect(await storedRelations()).toEqual(before);
    // Half-open spans: from the instant A -> B ended, B -> A closes no cycle.
    const after = await tenancy(b, a, "2021-01-01T00:00:00Z");
    expect(after.status).toBe(201);
  });

  test("a cycle needs one span in which every relation of the path is in force", async () => {
    const [a, b, c] = [await project("a"), await project("b"), await project("c")];
    await span(a, b, "2020-01-01T00:00:00Z", "2020-03-01T00:00:00Z");
    await span(b, c, "2020-04-01T00:00:00Z", "2020-09-01T00:00:00Z");
    // A -> B and B -> C never hold at once: C -> A closes no cycle, whenever it starts.
    const open = await tenancy(c, a, "2019-01-01T00:00:00Z");
    expect(open.status).toBe(201);
    const [d, e] = [await project("d"), await project("e")];
    await span(c, d, "2020-02-01T00:00:00Z", "2020-06-01T00:00:00Z");
    await span(d, e, "2020-05-01T00:00:00Z", "2020-07-01T00:00:00Z");
    const refused = await tenancy(e, c, "2020-01-01T00:00:00+16:00");
    expect(refused).toMatchObject({
      status: 409,
      json: {
        type: "urn:svc:error:relation_cycle",
        detail: `a infrastructure_tenant relation to ${c} from 2019-12-31T08:00:00.000Z would close a cycle of infrastructure_tenant relations in force together from 2020-05-01T00:00:00.000Z to 2020-06-01T00:00:00.000Z`,
      },
    });
  });

  test("two creations that would close a cycle together: exactly one succeeds", async () => {
    for (let round = 0; round < 5; round++) {
      await t.db.reset();
      // The reset dropped the file's tokens too.
      t.tokens.admin = await apiToken(t.db, "admin");
      const [a, b] = [await project("a"), await project("b")];
      const outs = await Promise.all([tenancy(a, b), tenancy(b, a)]);
      expect(outs.map((o) => o.status).sort()).toEqual([201, 409]);
    }
  });

  test("an empty attributing list turns the guard off", async () => {
    const off = buildTestApp(t.db, { attributingRelationTypes: [] }).app;
    const [a, b] = [await project("a"), await project("b")];
    for (const [source, target] of [
      [a, b],
      [b, a],
    ] as const) {
      const out = await call(off, "POST", `/api/v1/projects/${source}/relations`, {
        token: t.tokens.admin,
        body: { target_id: target, relation_type: "infrastructure_tenant" },
      });
      expect(out.status).toBe(201);
    }
  });
});

describe("PATCH and GET relations", () => {
  test("metadata replaced; adjustments, target and type fixed (same accepted, changed 409); closed is kept", async () => {
    const [a, b, c] = [await project("a"), await project("b"), await project("c")];
    const made = await relate(a, {
      target_id: b,
      relation_type: "infrastructure_tenant",
      metadata: { note: "x", pricing_adjustments: adjustments },
    });
    const url = `/api/v1/projects/${a}/relations/${(made.json as { id: string }).id}`;
    const patch = (body: unknown) => call(t.app, "PATCH", url, { token: t.tokens.admin, body });
    expect(
      await patch({
        metadata: { note: "y", pricing_adjustments: adjustments },
        target_id: b,
        relation_type: "infrastructure_tenant",
      }),
    ).toMatchObject({
      status: 200,
      json: { metadata: { note: "y", pricing_adjustments: adjustments } },
    });
    expect((await patch({ metadata: { note: "z" } })).status).toBe(409);
    expect((await patch({ metadata: { pricing_adjustments: [adjustments[0]] } })).status).toBe(409);
    expect((await patch({ target_id: c })).status).toBe(409);
    expect((await patch({ relation_type: "member_of" })).status).toBe(409);
    expect((await patch({ metadata: { pricing_adjustments: [{ type: "x" }] } })).status).toBe(422);
    expect((await patch({ valid_to: "2000-01-01T00:00:00Z" })).status).toBe(422);
    expect((await patch({ valid_to: "2099-01-01T00:00:00Z" })).status).toBe(200);
    expect((await patch({ valid_to: "2099-02-01T00:00:00Z" })).status).toBe(409);
    const [row] = await t.db.sql`select metadata->>'note' as note from project_relations`;
    expect(row?.note).toBe("y");
    const wrongSource = await call(t.app, "PATCH", url.replace(a, c), { token: t.tokens.admin, body: {} });
    expect(wrongSource.status).toBe(404);
  });

  test("the list pages outgoing (default) or incoming relations; read_all; out of scope 404", async () => {
    const hub = await project("hub");
    const tenants: string[] = [];
    for (let i = 0; i < 5; i++) {
      const t = await project(`t${i}`);
      tenants.push(t);
      await tenancy(hub, t, `2026-11-0${i + 1}T00:00:00Z`);
    }
    const readAll = await apiToken(t.db, "read_all");
    const seen = (
      await walkPages<{ target_id: string }>(t.app, `/api/v1/projects/${hub}/relations`, readAll, 2)
    ).map((r) => r.target_id);
    expect(seen).toEqual(tenants);
    const incoming = await call(t.app, "GET", `/api/v1/projects/${tenants[0]}/relations?direction=incoming`, {
      token: readAll,
    });
    expect((incoming.json as { items: { source_id: string }[] }).items.map((r) => r.source_id)).toEqual([
      hub,
    ]);
    expect(
      (
        await call(t.app, "GET", `/api/v1/projects/${hub}/relations`, {
          token: await apiToken(t.db, "reader"),
        })
      ).status,
    ).toBe(403);
    const scoped = await apiToken(t.db, "read_all", [tenants[0] ?? ""]);
    expect((await call(t.app, "GET", `/api/v1/projects/${hub}/relations`, { token: scoped })).status).toBe(
      404,
    );
    expect(
      (await call(t.app, "GET", `/api/v1/projects/${hub}/relations?cursor=WyJ4Il0`, { token: readAll }))
        .status,
    ).toBe(400);
  });

  test("property: for random relations, filters and limits, the pages are exactly the ordered filtered set", async () => {
    const hub = "00000000-0000-4000-8000-000000000000";
    const at = (m: number) => `2026-11-01T10:0${m}:00.000Z`;
    type Relation = {
      id: string;
      incoming: boolean;
      relation_type: string;
      valid_from: string;
      closed: boolean;
    };
    const relationKey = (r: { valid_from: string; id: string }) => `${r.valid_from} ${r.id}`;
    let readAll = "";
    await checkPaging({
      app: () => t.app,
      token: () => readAll,
      // Each relation links the hub with a project of its own, in either direction; minutes are shared,
      // so the order falls back on the id.
      data: fc.uniqueArray(
        fc.record({
          id: fc.uuid({ version: 4 }).map((u) => u.toLowerCase()),
          incoming: fc.boolean(),
          relation_type: fc.constantFrom("infrastructure_tenant", "reseller_of"),
          valid_from: fc.integer({ min: 0, max: 5 }).map(at),
          closed: fc.boolean(),
        }),
        { selector: (r) => r.id, maxLength: 25 },
      ),
      store: async (relations: Relation[]) => {
        await t.db.reset();
        readAll = await apiToken(t.db, "read_all");
        await t.db
          .sql`insert into projects (id, platform, cloud, external_id) values (${hub}, 'platform_a', 'c1', 'hub')`;
        for (const [i, r] of relations.entries()) {
          const [other] = await t.db.sql<{ id: string }[]>`
            insert into projects (platform, cloud, external_id) values ('platform_a', 'c1', ${`p${i}`}) returning id`;
          const [source, target] = r.incoming ? [other?.id, hub] : [hub, other?.id];
          await t.db
            .sql`insert into project_relations (id, source_id, target_id, relation_type, valid_from, valid_to)
            values (${r.id}, ${source ?? ""}, ${target ?? ""}, ${r.relation_type}, ${r.valid_from},
              ${r.closed ? "2026-12-01T00:00:00.000Z" : null})`;
        }
      },
      filter: fc.record(
        {
          direction: fc.constantFrom("outgoing", "incoming"),
          relation_type: fc.constantFrom("infrastructure_tenant", "reseller_of"),
        },
        { requiredKeys: [] },
      ),
      path: (filter) => `/api/v1/projects/${hub}/relations?${queryOf(filter)}`,
      expected: (relations, f) =>
        relations
          .filter(
            (r) =>
              r.incoming === (f.direction === "incoming") &&
              (f.relation_type === undefined || r.relation_type === f.relation_type),
          )
          .map(relationKey)
          .sort(),
      key: relationKey,
    });
  });
});
