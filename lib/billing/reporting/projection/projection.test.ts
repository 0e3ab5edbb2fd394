import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  reportingDatabaseOfFile,
  reportingTestDatabase,
} from "../../../../harness/reporting/reporting-database.ts";
import { unauthenticatedIngest } from "../../../../harness/reporting/unauthenticated-ingest.ts";
import { jsonEqual } from "../../../foundation/json/canonical-json.ts";
import type { JsonValue } from "../../../foundation/json/json-value.ts";
import type { CanonicalEvent } from "../../events/event.ts";
import { foldHistory } from "../../history/fold.ts";
import { ingestItems } from "../ingest/ingest-batch.ts";
import { lockResources, readAllProjectionRows, rowStateOf } from "./project-resources.ts";
import { rebuildProjection } from "./rebuild.ts";
import { resourceKeyString } from "./resource-key.ts";

const db = reportingDatabaseOfFile(6);

const ctx = unauthenticatedIngest;

type Item = Omit<CanonicalEvent, "source" | "payload"> & {
  payload: { state?: string; size?: { size_gb: number; type: string } };
};

const kinds = [
  "volume.create.end",
  "volume.resize.end",
  "volume.retype",
  "volume.transfer.accept.end",
  "volume.delete.end",
  "sync.create",
  "sync.delete",
];

/** Random histories of up to three volumes, with colliding instants so ties are exercised. */
const historiesArb = fc
  .array(
    fc.record({
      resource: fc.integer({ min: 1, max: 3 }),
      hour: fc.integer({ min: 0, max: 12 }),
      kind: fc.constantFrom(...kinds),
      state: fc.constantFrom("available", "in-use"),
      size: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      project: fc.constantFrom("p1", "p2"),
      month: fc.constantFrom(9, 10),
    }),
    { minLength: 1, maxLength: 18 },
  )
  .map((raw) =>
    raw.map((r, i): Item => {
      const create = r.kind.includes("create");
      const del = r.kind.includes("delete");
      const sizeGb = r.size ?? (create ? 1 : undefined);
      return {
        event_id: `e${i}`,
        timestamp: new Date(Date.UTC(2026, r.month, 1, r.hour)).toISOString(),
        event_type: r.kind,
        platform: "platform_a",
        cloud: "c1",
        resource_type: "volume",
        resource_id: `v${r.resource}`,
        project_id: r.project,
        payload: del
          ? {}
          : {
              state: r.state,
              ...(sizeGb === undefined ? {} : { size: { size_gb: sizeGb * 10, type: "ssd" } }),
            },
      };
    }),
  );

/** The projection the pure fold says the history gives: the oracle for every arrival order. */
function expectedRows(items: readonly Item[]) {
  const groups = new Map<string, Item[]>();
  for (const it of items)
    groups.set(resourceKeyString(it), [...(groups.get(resourceKeyString(it)) ?? []), it]);
  return [...groups.entries()]
    .map(([key, events]) => {
      const state = foldHistory(events).state;
      if (!state) throw new Error("a non-empty history folds to a state");
      return {
        key,
        state: state?.state,
        size: state?.size,
        project_id: state?.project_id,
        created_at: state?.created_at,
        deleted_at: state?.deleted_at,
        last: state?.last,
        count: events.length,
      };
    })
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

async function storedRows() {
  const rows = await readAllProjectionRows(db.sql);
  return rows
    .map((r) => ({
      key: resourceKeyString({ cloud: r.cloud, resource_type: r.resourceType, resource_id: r.resourceId }),
      ...rowStateOf(r),
      count: r.eventCount,
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

function shuffle<T>(items: readonly T[], keys: number[]): T[] {
  return items
    .map((it, i) => ({ it, k: keys[i % keys.length] ?? 0 }))
    .sort((a, b) => a.k - b.k)
    .map(({ it }) => it);
}

function split<T>(items: readonly T[], cuts: number[]): T[][] {
  const batches: T[][] = [];
  let at = 0;
  for (const c of cuts) {
    if (at >= items.length) break;
    batches.push(items.slice(at, at + c));
    at += c;
  }
  if (at < items.length) batches.push(items.slice(at));
  return batches;
}

const runs = { numRuns: 12 };

describe("projection properties (real PostgreSQL)", () => {
  test("any arrival order and batch split gives the rows of the fold in order", async () => {
    await fc.assert(
      fc.asyncProperty(
        historiesArb,
        fc.array(fc.nat(), { minLength: 1, maxLength: 18 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 18 }),
        async (items, order, cuts) => {
          await db.reset();
          for (const batch of split(shuffle(items, order), cuts)) {
            const out = await ingestItems(db, batch, ctx);
            expect(out.result.rejected).toEqual([]);
          }
          expect(await storedRows()).toEqual(expectedRows(items));
        },
      ),
      runs,
    );
  });

  test("posting batches twice, from two clients at once, stores each event once", async () => {
    await fc.assert(
      fc.asyncProperty(
        historiesArb,
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 6 }),
        async (items, cuts) => {
          await db.reset();
          const batches = split(items, cuts);
          const client = async () => {
            let accepted = 0;
            let duplicates = 0;
            for (const b of batches) {
              const out = await ingestItems(db, b, ctx);
              accepted += out.result.accepted;
              duplicates += out.result.duplicates;
            }
            return { accepted, duplicates };
          };
          const [a, b] = await Promise.all([client(), client()]);
          expect((a?.accepted ?? 0) + (b?.accepted ?? 0)).toBe(items.length);
          expect((a?.duplicates ?? 0) + (b?.duplicates ?? 0)).toBe(items.length);
          const [{ n }] = (await db.sql`select count(*)::int as n from events`) as unknown as [{ n: number }];
          expect(n).toBe(items.length);
          expect(await storedRows()).toEqual(expectedRows(items));
        },
      ),
      runs,
    );
  });

  test("a rebuild while ingest writes the same resources ends as a rebuild alone", async () => {
    await fc.assert(
      fc.asyncProperty(
        historiesArb,
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }),
        async (items, cuts) => {
          await db.reset();
          const half = Math.ceil(items.length / 2);
          await ingestItems(db, items.slice(0, half), ctx);
          // Corrupt the projection so that the rebuild has work to do.
          await db.sql`update current_resources set state = 'bogus', event_count = 0`;
          const ingest = (async () => {
            for (const b of split(items.slice(half), cuts)) await ingestItems(db, b, ctx);
          })();
          const rebuilds = Promise.all([
            rebuildProjection(db.sql, { cloud: "c1" }),
            rebuildProjection(db.sql, {}),
          ]);
          await Promise.all([ingest, rebuilds]);
          const concurrent = await storedRows();
          await rebuildProjection(db.sql, {});
          expect(concurrent).toEqual(await storedRows());
          expect(concurrent).toEqual(expectedRows(items));
        },
      ),
      runs,
    );
  });
});

describe("rebuild filter", () => {
  test("selects by cloud, resource type, resource id and project (any event of it)", async () => {
    await db.reset();
    const base = {
      platform: "platform_a",
      resource_type: "volume",
      payload: { state: "available", size: { size_gb: 1, type: "t" } },
    };
    await ingestItems(
      db,
      [
        {
          ...base,
          event_id: "a",
          timestamp: "2026-10-01T00:00:00Z",
          event_type: "volume.create.end",
          cloud: "c1",
          resource_id: "v1",
          project_id: "p1",
        },
        {
          ...base,
          event_id: "b",
          timestamp: "2026-10-02T00:00:00Z",
          event_type: "volume.transfer.accept.end",
          cloud: "c1",
          resource_id: "v1",
          project_id: "p2",
        },
        {
          ...base,
          event_id: "c",
          timestamp: "2026-10-01T00:00:00Z",
          event_type: "volume.create.end",
          cloud: "c2",
          resource_id: "v2",
          project_id: "p1",
        },
      ],
      ctx,
    );
    expect(await rebuildProjection(db.sql, { project_id: "p1" })).toEqual({ resources: 2, events: 3 });
    expect(await rebuildProjection(db.sql, { cloud: "c1", project_id: "p1" })).toEqual({
      resources: 1,
      events: 2,
    });
    expect(await rebuildProjection(db.sql, { resource_id: "v2" })).toEqual({ resources: 1, events: 1 });
    expect(await rebuildProjection(db.sql, { resource_type: "instance" })).toEqual({
      resources: 0,
      events: 0,
    });
    // A discarded row is folded again from the history.
    await db.sql`delete from current_resources where resource_id = 'v1'`;
    expect(await rebuildProjection(db.sql, { cloud: "c1" })).toEqual({ resources: 1, events: 2 });
    const [row] = await db.sql`select project_id from current_resources where resource_id = 'v1'`;
    expect(row?.project_id).toBe("p2");
  });

  test("a filter selecting more resources than one call refolds is refused whole, changing nothing", async () => {
    await db.sql`delete from current_resources`;
    const attempt = rebuildProjection(db.sql, {}, { maxResources: 1 });
    await expect(attempt).rejects.toMatchObject({ code: "payload_too_large" });
    expect((await db.sql`select count(*)::int as n from current_resources`)[0]?.n).toBe(0);
    expect(await rebuildProjection(db.sql, { cloud: "c2" }, { maxResources: 1 })).toEqual({
      resources: 1,
      events: 1,
    });
  });
});

// Issue 8, defect 5: one event accepted before ingest bounded the depth of a payload (decision 118)
// broke every later refold and rebuild of its resource. Whatever is stored must still fold.
describe("a payload stored nested far deeper than ingest now accepts", () => {
  test("still rebuilds, and refolds when an older event arrives", async () => {
    await db.reset();
    let size: unknown = "deep";
    for (let i = 0; i < 10_000; i++) size = i % 2 === 0 ? [size] : { a: size, b: 1 };
    await db.partitions.ensureFor(["2026-10-05T00:00:00.000Z"]);
    await db.sql`
      insert into events (event_id, timestamp, event_type, platform, cloud, resource_type, resource_id,
        project_id, source, payload)
      values ('stored-deep', '2026-10-05T00:00:00Z', 'thing.update', 'platform_a', 'c9', 'thing', 't1', 'p1',
        'collector', ${JSON.stringify({ state: "active", size: { deep: size } })}::jsonb)`;
    expect(await rebuildProjection(db.sql, { resource_id: "t1" })).toEqual({ resources: 1, events: 1 });
    const older = await ingestItems(
      db,
      [
        {
          event_id: "older",
          timestamp: "2026-10-01T00:00:00Z",
          event_type: "thing.create",
          platform: "platform_a",
          cloud: "c9",
          resource_type: "thing",
          resource_id: "t1",
          project_id: "p1",
          payload: { state: "building", size: { small: 1 } },
        },
      ],
      ctx,
    );
    expect(older.result).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect(older.projection).toEqual({ resources: 1, refolded: 1, events: 1, presumedFound: 1 });
    const folded =
      await db.sql`select state, size, event_count from current_resources where resource_id = 't1'`;
    expect(folded[0]?.state).toBe("active");
    expect(folded[0]?.event_count).toBe(2);
    expect(jsonEqual(folded[0]?.size, { deep: size as JsonValue })).toBe(true);
    await db.sql`delete from current_resources`;
    expect(await rebuildProjection(db.sql, { resource_id: "t1" })).toEqual({ resources: 1, events: 2 });
    const rebuilt =
      await db.sql`select state, size, event_count from current_resources where resource_id = 't1'`;
    expect(jsonEqual(rebuilt[0]?.size, folded[0]?.size)).toBe(true);
  });
});

describe("resource locks", () => {
  test("a key's lock is the one the server's hashtextextended(key, 731) names, as before decision 155", async () => {
    await db.reset();
    const keys = ["c1|volume|vol-1", "c1|volume|vol-2", "cloud-é|instance|😀-1", "c1|volume|vol-1"];
    const held = await db.sql.begin(async (tx) => {
      await lockResources(tx, keys);
      return tx<{ n: number }[]>`
        select count(*)::int as n from pg_locks l
        join unnest(${keys}::text[]) as k on ((l.classid::int8 << 32) | l.objid::int8) = hashtextextended(k, 731)
        where l.locktype = 'advisory' and l.objsubid = 1 and l.pid = pg_backend_pid()`;
    });
    // One lock per distinct key, each found under every key naming it.
    expect(held[0]?.n).toBe(4);
    const [{ n } = { n: -1 }] = await db.sql<{ n: number }[]>`select count(*)::int as n from pg_locks
      where locktype = 'advisory' and pid = pg_backend_pid()`;
    expect(n).toBe(0);
  });
});

describe("the projection's plans", () => {
  test("ingest's read finds rows by the whole primary key, though its plan was made on an empty projection", async () => {
    // One connection, so every batch runs the plan the first one made (decision 157).
    const one = await reportingTestDatabase(1);
    try {
      const volume = (i: number, event_type: string, hour: number) => ({
        event_id: `${event_type}-${i}`,
        timestamp: new Date(Date.UTC(2026, 9, 1, hour)).toISOString(),
        event_type,
        platform: "platform_a",
        cloud: "c1",
        resource_type: "volume",
        resource_id: `v${i}`,
        project_id: "p1",
        payload: { state: "available", size: { size_gb: 10, type: "ssd" } },
      });
      const many = (event_type: string, hour: number) =>
        Array.from({ length: 1000 }, (_, i) => volume(i + 1, event_type, hour));
      // A resource without a row whose batch does not begin with its create is read: on an empty table.
      await ingestItems(one, [volume(0, "volume.resize.end", 1)], ctx);
      await ingestItems(one, many("volume.create.end", 2), ctx);
      const out = await ingestItems(one, many("volume.resize.end", 3), ctx);
      expect(out.result.accepted).toBe(1000);
      await one.sql`select pg_stat_force_next_flush()`;
      const scans = await one.sql<{ index: string; scans: number }[]>`
        select indexrelname as index, idx_scan::int as scans from pg_stat_user_indexes
        where relname = 'current_resources' order by 1`;
      // Each read key is one probe of the primary key; the project index, searched by the cloud alone,
      // would have read every row of the cloud for each key.
      expect([...scans]).toEqual([
        { index: "current_resources_pkey", scans: 1001 },
        { index: "current_resources_project_idx", scans: 0 },
      ]);
    } finally {
      await one.dispose();
    }
  });
});
