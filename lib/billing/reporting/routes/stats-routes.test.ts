import { describe, expect, test } from "bun:test";
import { apiToken, call, reportingTestFile } from "../../../../harness/reporting/reporting-test-app.ts";
import { unauthenticatedIngest } from "../../../../harness/reporting/unauthenticated-ingest.ts";
import { volumeEvent } from "../../../../harness/reporting/volume-event.ts";
import { ResultTooLargeError } from "../../../foundation/errors/svc-error.ts";
import { ingestItems } from "../ingest/ingest-batch.ts";
import { eventStats, eventStatsQuery } from "../reads/event-stats.ts";

const t = reportingTestFile({ tokens: ["reader"] });

async function seed() {
  const out = await ingestItems(
    t.db,
    [
      volumeEvent("1", { cloud: "c2" }),
      volumeEvent("2", { project_id: "p2" }),
      volumeEvent("3", { payload: { state: "in-use", size: { size_gb: 1, type: "t" } } }),
      volumeEvent("4", {
        resource_type: "image",
        event_type: "image.create",
        payload: { state: "active", size: { size_gb: 2 } },
      }),
      volumeEvent("5", {
        resource_id: "v-1",
        cloud: "c2",
        event_type: "volume.delete.end",
        timestamp: "2026-11-01T12:30:00.000Z",
        payload: {},
      }),
      volumeEvent("6", {
        resource_id: "v-2",
        project_id: "p2",
        event_type: "volume.update.end",
        timestamp: "2026-11-02T00:00:00.000Z",
      }),
    ],
    unauthenticatedIngest,
  );
  expect(out.result.rejected).toEqual([]);
}

const stats = async (path: string, token = t.tokens.reader) => call(t.app, "GET", path, { token });

describe("GET /api/v1/stats/resources", () => {
  test("counts per grouped combination, ordered, no zero items; status default active", async () => {
    await seed();
    expect((await stats("/api/v1/stats/resources?group_by=cloud,resource_type")).json).toEqual({
      items: [
        { cloud: "c1", resource_type: "image", count: 1 },
        { cloud: "c1", resource_type: "volume", count: 2 },
      ],
    });
    expect(
      (await stats("/api/v1/stats/resources?group_by=resource_type,cloud,state&status=all")).json,
    ).toEqual({
      items: [
        { cloud: "c1", resource_type: "image", state: "active", count: 1 },
        { cloud: "c1", resource_type: "volume", state: "available", count: 1 },
        { cloud: "c1", resource_type: "volume", state: "in-use", count: 1 },
        { cloud: "c2", resource_type: "volume", state: "deleted", count: 1 },
      ],
    });
    expect(
      (await stats("/api/v1/stats/resources?group_by=cloud,resource_type,project_id&status=deleted")).json,
    ).toEqual({
      items: [{ cloud: "c2", resource_type: "volume", project_id: "p1", count: 1 }],
    });
  });

  test("group_by repeated, incomplete or unknown is 400; at is 501; a project token counts its own", async () => {
    for (const g of ["cloud", "cloud,cloud,resource_type", "cloud,resource_type,colour", ""]) {
      const out = await stats(`/api/v1/stats/resources?group_by=${g}`);
      expect({
        g,
        status: out.status,
        loc: (out.json as { errors: { loc: string }[] }).errors?.[0]?.loc,
      }).toEqual({
        g,
        status: 400,
        loc: "query.group_by",
      });
    }
    expect((await stats("/api/v1/stats/resources")).status).toBe(400);
    expect(
      (await stats("/api/v1/stats/resources?group_by=cloud,resource_type&group_by=cloud,resource_type"))
        .status,
    ).toBe(400);
    expect(
      await stats("/api/v1/stats/resources?group_by=cloud,resource_type&at=2026-11-01T00:00:00Z"),
    ).toMatchObject({
      status: 501,
      json: { type: "urn:svc:error:not_implemented" },
    });
    await seed();
    const admin = await apiToken(t.db, "admin");
    const created = await call(t.app, "POST", "/api/v1/projects", {
      token: admin,
      body: { platform: "platform_a", cloud: "c1", external_id: "p2" },
    });
    const scoped = await apiToken(t.db, "reader", [(created.json as { id: string }).id]);
    expect((await stats("/api/v1/stats/resources?group_by=cloud,resource_type", scoped)).json).toEqual({
      items: [{ cloud: "c1", resource_type: "volume", count: 1 }],
    });
  });
});

describe("GET /api/v1/stats/events", () => {
  test("UTC-aligned buckets counting only inside the window, ordered, empty buckets omitted", async () => {
    await seed();
    const out = await stats(
      "/api/v1/stats/events?group_by=cloud,event_type&from=2026-11-01T10:00:00.001Z&to=2026-11-01T12:31:00Z&interval=1h",
    );
    expect(out.json).toEqual({
      items: [{ bucket: "2026-11-01T12:00:00.000Z", cloud: "c2", event_type: "volume.delete.end", count: 1 }],
    });
    const daily = await stats(
      "/api/v1/stats/events?group_by=event_type,source,cloud&from=2026-10-31T12:00:00Z&to=2026-11-03T00:00:00Z&interval=1d",
    );
    expect(daily.json).toEqual({
      items: [
        {
          bucket: "2026-11-01T00:00:00.000Z",
          cloud: "c1",
          event_type: "image.create",
          source: "collector",
          count: 1,
        },
        {
          bucket: "2026-11-01T00:00:00.000Z",
          cloud: "c1",
          event_type: "volume.create.end",
          source: "collector",
          count: 2,
        },
        {
          bucket: "2026-11-01T00:00:00.000Z",
          cloud: "c2",
          event_type: "volume.create.end",
          source: "collector",
          count: 1,
        },
        {
          bucket: "2026-11-01T00:00:00.000Z",
          cloud: "c2",
          event_type: "volume.delete.end",
          source: "collector",
          count: 1,
        },
        {
          bucket: "2026-11-02T00:00:00.000Z",
          cloud: "c1",
          event_type: "volume.update.end",
          source: "collector",
          count: 1,
        },
      ],
    });
  });

  test("from >= to holds nothing; a window over a year and a month is 422 before counting; bad input 400", async () => {
    await seed();
    const q = "group_by=cloud,event_type&interval=1d";
    expect(
      (await stats(`/api/v1/stats/events?${q}&from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z`)).json,
    ).toEqual({ items: [] });
    expect(
      (await stats(`/api/v1/stats/events?${q}&from=2025-10-01T00:00:00Z&to=2026-11-01T00:00:00Z`)).status,
    ).toBe(200);
    expect(
      await stats(`/api/v1/stats/events?${q}&from=2025-10-01T00:00:00Z&to=2026-11-01T00:00:00.001Z`),
    ).toMatchObject({
      status: 422,
      json: { type: "urn:svc:error:result_too_large" },
    });
    for (const bad of [
      "group_by=cloud&interval=1d&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z",
      "group_by=cloud,event_type&interval=1w&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z",
      "group_by=cloud,event_type&interval=1d&from=2026-11-01T00:00:00Z",
    ]) {
      expect((await stats(`/api/v1/stats/events?${bad}`)).status).toBe(400);
    }
  });
});

describe("result_too_large on event counts", () => {
  /** Rows the plan of `eventStatsQuery` read from `events` (every scan node, times its loops). */
  function rowsRead(plan: Record<string, unknown>): number {
    const own = String(plan["Relation Name"] ?? "").startsWith("events")
      ? Number(plan["Actual Rows"]) * Number(plan["Actual Loops"])
      : 0;
    const children = (plan.Plans ?? []) as Record<string, unknown>[];
    return own + children.reduce((n, child) => n + rowsRead(child), 0);
  }

  test("is decided before the window is counted: the database stops at the first item past the bound", async () => {
    // Ten hourly buckets, two items each (clouds c1 and c2), three events per item.
    const events = [];
    for (let hour = 0; hour < 10; hour++)
      for (const cloud of ["c1", "c2"])
        for (let i = 0; i < 3; i++) {
          const id = `${hour}-${cloud}-${i}`;
          events.push(
            volumeEvent(id, { cloud, timestamp: `2026-11-01T${String(hour).padStart(2, "0")}:10:00.000Z` }),
          );
        }
    expect((await ingestItems(t.db, events, unauthenticatedIngest)).result.rejected).toEqual([]);
    const window = {
      from: "2026-11-01T00:00:00.000Z",
      to: "2026-11-01T10:00:00.000Z",
      interval: "1h" as const,
      scope: null,
    };
    const counted = await eventStats(t.db.sql, { ...window, groupBy: ["cloud", "event_type"], maxItems: 20 });
    expect(counted.items).toHaveLength(20);
    await expect(
      eventStats(t.db.sql, { ...window, groupBy: ["cloud", "event_type"], maxItems: 3 }),
    ).rejects.toBeInstanceOf(ResultTooLargeError);
    // Past a bound of 3 after the second bucket: the plan read those two buckets' 12 events of 60.
    const [explained] = await t.db.sql<{ "QUERY PLAN": [{ Plan: Record<string, unknown> }] }[]>`
      explain (analyze, format json) ${eventStatsQuery(t.db.sql, { ...window, maxItems: 3 })}`;
    expect(rowsRead(explained?.["QUERY PLAN"][0].Plan ?? {})).toBe(12);
  });
});
