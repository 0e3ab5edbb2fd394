import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { WorkloadEvent } from "../../../../harness/reporting/ingest-workload.ts";
import { apiToken, call, reportingTestFile } from "../../../../harness/reporting/reporting-test-app.ts";
import { unauthenticatedIngest } from "../../../../harness/reporting/unauthenticated-ingest.ts";
import { categoryOf } from "../../events/category.ts";
import { ingestItems } from "../ingest/ingest-batch.ts";

const t = reportingTestFile({ tokens: ["reader", "admin"] });

async function register(externalId: string, cloud = "c1"): Promise<string> {
  const out = await call(t.app, "POST", "/api/v1/projects", {
    token: t.tokens.admin,
    body: { platform: "platform_a", cloud, external_id: externalId },
  });
  return (out.json as { id: string }).id;
}

const base = Date.parse("2026-10-01T00:00:00.000Z");
const minute = (m: number) => new Date(base + m * 60_000).toISOString();

type Ev = WorkloadEvent;

function ev(
  id: string,
  m: number,
  kind: "create" | "update" | "delete",
  resource: string,
  project: string,
  state = "active",
): Ev {
  const type = resource.startsWith("i") ? "instance" : "volume";
  return {
    event_id: id,
    timestamp: minute(m),
    event_type: `${type}.${kind}.end`,
    platform: "platform_a",
    cloud: "c1",
    resource_type: type,
    resource_id: resource,
    project_id: project,
    payload:
      kind === "delete"
        ? {}
        : {
            state,
            ...(kind === "create"
              ? {
                  size:
                    type === "instance"
                      ? { vcpus: 1, ram_gb: 1, disk_gb: 1, flavor: "f" }
                      : { size_gb: 1, type: "t" },
                }
              : {}),
          },
  };
}

/**
 * The independent computation: replay each resource minute by minute (every instant in these tests is
 * on a minute), applying every event at or before the minute, and count the minutes it was alive and
 * owned by the project. No fold, no interval, no clipping.
 */
function expectedSummary(events: readonly Ev[], owner: string, from: number, to: number) {
  const out = new Map<string, { created: Set<string>; deleted: Set<string>; minutes: number }>();
  const entry = (type: string) => {
    const e = out.get(type) ?? { created: new Set<string>(), deleted: new Set<string>(), minutes: 0 };
    out.set(type, e);
    return e;
  };
  const rank = { create: 0, update: 1, delete: 2 };
  const byResource = new Map<string, Ev[]>();
  for (const e of events) byResource.set(e.resource_id, [...(byResource.get(e.resource_id) ?? []), e]);
  for (const [id, list] of byResource) {
    const sorted = [...list].sort(
      (a, b) =>
        a.timestamp.localeCompare(b.timestamp) ||
        rank[categoryOf(a.event_type)] - rank[categoryOf(b.event_type)] ||
        a.event_id.localeCompare(b.event_id),
    );
    for (let m = from; m < to; m++) {
      let alive = false;
      let deleted = false;
      let holder = "";
      for (const e of sorted) {
        if (e.timestamp > minute(m)) break;
        const c = categoryOf(e.event_type);
        if (c === "create") [alive, deleted, holder] = [true, false, e.project_id];
        else if (c === "delete") [alive, deleted] = [false, true];
        else if (!deleted) [alive, holder] = [true, e.project_id];
      }
      if (alive && holder === owner) entry(list[0]?.resource_type ?? "").minutes++;
    }
    for (const e of list) {
      if (e.project_id !== owner || e.timestamp < minute(from) || e.timestamp >= minute(to)) continue;
      const c = categoryOf(e.event_type);
      if (c === "create") entry(e.resource_type).created.add(id);
      if (c === "delete") entry(e.resource_type).deleted.add(id);
    }
  }
  return out;
}

type Summary = {
  resource_types: {
    resource_type: string;
    created: number;
    deleted: number;
    minutes: number;
    active_now: number;
  }[];
};

describe("GET /api/v1/projects/{id}/summary", () => {
  test("property: agrees with a minute-by-minute replay, with transfers, deletes, re-creates and cut windows", async () => {
    const p1 = await register("p1");
    const step = fc.record({
      at: fc.integer({ min: 0, max: 300 }),
      kind: fc.constantFrom("create", "update", "update", "delete") as fc.Arbitrary<
        "create" | "update" | "delete"
      >,
      project: fc.constantFrom("p1", "p2"),
      state: fc.constantFrom("active", "shutoff"),
    });
    const resource = fc.record({
      kind: fc.constantFrom("i", "v"),
      steps: fc.array(step, { minLength: 1, maxLength: 6 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(resource, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 320 }),
        fc.integer({ min: 0, max: 320 }),
        async (resources, a, b) => {
          await t.db.sql`truncate events, current_resources`;
          const events = resources.flatMap((r, i) =>
            r.steps.map((s, j) => ev(`e${i}-${j}`, s.at, s.kind, `${r.kind}${i}`, s.project, s.state)),
          );
          await ingestItems(t.db, events, unauthenticatedIngest);
          const out = await call(
            t.app,
            "GET",
            `/api/v1/projects/${p1}/summary?from=${minute(a)}&to=${minute(b)}`,
            {
              token: t.tokens.reader,
            },
          );
          expect(out.status).toBe(200);
          const got = (out.json as Summary).resource_types.map(
            ({ resource_type, created, deleted, minutes }) => ({
              resource_type,
              created,
              deleted,
              minutes,
            }),
          );
          const want = [...expectedSummary(events, "p1", a, b)]
            .map(([resource_type, e]) => ({
              resource_type,
              created: e.created.size,
              deleted: e.deleted.size,
              minutes: e.minutes,
            }))
            .filter(
              (e) =>
                e.created + e.deleted + e.minutes > 0 || got.some((g) => g.resource_type === e.resource_type),
            )
            .sort((x, y) => x.resource_type.localeCompare(y.resource_type));
          expect(got.filter((g) => g.created + g.deleted + g.minutes > 0)).toEqual(
            want.filter((w) => w.created + w.deleted + w.minutes > 0),
          );
        },
      ),
      { numRuns: 30 },
    );
  });

  test("active_now from the projection; from >= to gives zeros with active_now unchanged", async () => {
    const p1 = await register("p1");
    await ingestItems(
      t.db,
      [ev("a", 0, "create", "i1", "p1"), ev("b", 0, "create", "i2", "p1"), ev("c", 10, "delete", "i2", "p1")],
      unauthenticatedIngest,
    );
    const out = await call(
      t.app,
      "GET",
      `/api/v1/projects/${p1}/summary?from=${minute(0)}&to=${minute(60)}`,
      {
        token: t.tokens.reader,
      },
    );
    expect(out.json).toMatchObject({
      project: { id: p1, cloud: "c1", external_id: "p1", platform: "platform_a" },
      from: minute(0),
      to: minute(60),
      resource_types: [
        {
          resource_type: "instance",
          created: 2,
          deleted: 1,
          minutes: 70,
          minutes_by_state: { active: 70 },
          active_now: 1,
        },
      ],
    });
    const empty = await call(
      t.app,
      "GET",
      `/api/v1/projects/${p1}/summary?from=${minute(60)}&to=${minute(60)}`,
      { token: t.tokens.reader },
    );
    expect((empty.json as Summary).resource_types).toEqual([
      {
        resource_type: "instance",
        created: 0,
        deleted: 0,
        minutes: 0,
        minutes_by_state: {},
        active_now: 1,
      } as never,
    ]);
  });

  test("an open interval counts up to the request instant, never into the future", async () => {
    const p1 = await register("p1");
    const started = Date.now() - 10 * 60_000;
    await ingestItems(
      t.db,
      [{ ...ev("a", 0, "create", "i1", "p1"), timestamp: new Date(started).toISOString() }],
      unauthenticatedIngest,
    );
    const before = Date.now();
    const out = await call(
      t.app,
      "GET",
      `/api/v1/projects/${p1}/summary?from=${new Date(started - 3_600_000).toISOString()}&to=2999-01-01T00:00:00Z`,
      { token: t.tokens.reader },
    );
    const after = Date.now();
    const minutes = (out.json as Summary).resource_types[0]?.minutes ?? 0;
    expect(minutes).toBeGreaterThanOrEqual(Math.floor((before - started) / 60) / 1000 - 0.001);
    expect(minutes).toBeLessThanOrEqual((after - started) / 60_000 + 0.001);
  });

  test("unknown and out-of-scope projects are the identical 404; bad windows are 400", async () => {
    const p1 = await register("p1");
    const p2 = await register("p2");
    const scoped = await apiToken(t.db, "reader", [p1]);
    const q = `from=${minute(0)}&to=${minute(1)}`;
    const outside = await call(t.app, "GET", `/api/v1/projects/${p2}/summary?${q}`, { token: scoped });
    expect(outside.status).toBe(404);
    expect((await call(t.app, "GET", `/api/v1/projects/${p1}/summary?${q}`, { token: scoped })).status).toBe(
      200,
    );
    for (const bad of ["", `from=${minute(0)}`, "from=x&to=y", `${q}&extra=1`]) {
      expect(
        (await call(t.app, "GET", `/api/v1/projects/${p1}/summary?${bad}`, { token: t.tokens.reader }))
          .status,
      ).toBe(400);
    }
  });

  test("a resource history longer than the bound is history_too_long", async () => {
    const p1 = await register("p1");
    const many = Array.from({ length: 10_001 }, (_, i) => ({
      ...ev(`u${i}`, 0, i === 0 ? "create" : "update", "i1", "p1"),
      timestamp: new Date(base + i * 1000).toISOString(),
    }));
    for (let i = 0; i < many.length; i += 1000)
      await ingestItems(t.db, many.slice(i, i + 1000), unauthenticatedIngest);
    const out = await call(
      t.app,
      "GET",
      `/api/v1/projects/${p1}/summary?from=${minute(0)}&to=${minute(600)}`,
      {
        token: t.tokens.reader,
      },
    );
    expect(out).toMatchObject({ status: 422, json: { type: "urn:svc:error:history_too_long" } });
    const history = await call(
      t.app,
      "GET",
      "/api/v1/resources/history?cloud=c1&resource_type=instance&resource_id=i1",
      {
        token: t.tokens.reader,
      },
    );
    expect(history).toMatchObject({ status: 422, json: { type: "urn:svc:error:history_too_long" } });
  });
});

describe("GET /api/v1/resources/history", () => {
  test("events in order with the fold's intervals; scoped to the token's projects; unknown 404", async () => {
    const p1 = await register("p1");
    await ingestItems(
      t.db,
      [
        ev("a", 0, "create", "v1", "p1"),
        ev("b", 10, "update", "v1", "p2"),
        ev("c", 20, "delete", "v1", "p2"),
      ],
      unauthenticatedIngest,
    );
    const path = "/api/v1/resources/history?cloud=c1&resource_type=volume&resource_id=v1";
    const all = (await call(t.app, "GET", path, { token: t.tokens.reader })).json as {
      events: Ev[];
      intervals: unknown[];
    };
    expect(all.events.map((e) => e.event_id)).toEqual(["a", "b", "c"]);
    expect(all.intervals).toEqual([
      { from: minute(0), to: minute(10), state: "active", project_id: "p1", size: { size_gb: 1, type: "t" } },
      {
        from: minute(10),
        to: minute(20),
        state: "active",
        project_id: "p2",
        size: { size_gb: 1, type: "t" },
      },
    ]);
    const scoped = await apiToken(t.db, "reader", [p1]);
    const mine = (await call(t.app, "GET", path, { token: scoped })).json as {
      events: Ev[];
      intervals: unknown[];
    };
    expect(mine.events.map((e) => e.event_id)).toEqual(["a"]);
    expect(mine.intervals).toHaveLength(1);
    expect((await call(t.app, "GET", path.replace("v1", "v9"), { token: t.tokens.reader })).status).toBe(404);
  });
});
