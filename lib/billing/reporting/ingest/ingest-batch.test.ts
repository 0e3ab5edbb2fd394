import { beforeEach, describe, expect, test } from "bun:test";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import { volumeEvent } from "../../../../harness/reporting/volume-event.ts";
import type { IngestPrincipal } from "../auth/credential-lookup.ts";
import { pgInstant } from "../database.ts";
import { lockResources } from "../projection/project-resources.ts";
import { resourceKeyString } from "../projection/resource-key.ts";
import { type IngestContext, ingestItems } from "./ingest-batch.ts";

const db = reportingDatabaseOfFile();
beforeEach(async () => {
  await db.reset();
});

const principal: IngestPrincipal = {
  scheme: "ingest",
  id: crypto.randomUUID(),
  platform: "platform_a",
  cloud: "c1",
};
const ctx: IngestContext = {
  principal,
  pipeline: "collector",
  requireSizeSchema: false,
  single: false,
  requestId: "r1",
};

/** The shared volume event under the ids and size type this file's rows name; `over` may add any member. */
function volume(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  const event = volumeEvent(`ev-${id}`, {
    timestamp: "2026-10-01T00:00:00Z",
    resource_id: `vol-${id}`,
    payload: { state: "available", size: { size_gb: 10, type: "t-ssd" } },
  });
  return { ...event, ...over };
}

const ingest = (items: unknown[], c: IngestContext = ctx) => ingestItems(db, items, c);

/**
 * A transaction of the pool holding vol-1's lock, as a batch in its projection step would, until
 * `until` settles; returned once the lock is taken.
 */
async function holdingVol1Lock(until: Promise<unknown>): Promise<{ holding: Promise<void> }> {
  const taken = Promise.withResolvers<void>();
  const holding = db.sql.begin(async (tx) => {
    await lockResources(tx, [
      resourceKeyString({ cloud: "c1", resource_type: "volume", resource_id: "vol-1" }),
    ]);
    taken.resolve();
    await until;
  });
  await taken.promise;
  return { holding };
}

/** vol-1 resized to 20 GB a day after `volume("1")` created it. */
const resized = volume("1b", {
  resource_id: "vol-1",
  timestamp: "2026-10-02T00:00:00Z",
  event_type: "volume.resize.end",
  payload: { state: "available", size: { size_gb: 20, type: "t-ssd" } },
});

describe("ingestItems", () => {
  test("stores, deduplicates on (event_id, timestamp), stores source collector whatever is claimed", async () => {
    const items = [volume("1", { source: "reconciliation" }), volume("2"), volume("1")];
    const first = await ingest(items);
    expect(first.result).toEqual({ accepted: 2, duplicates: 1, rejected: [] });
    const again = await ingest(items);
    expect(again.result).toEqual({ accepted: 0, duplicates: 3, rejected: [] });
    // Same id at another instant is a different event.
    const moved = await ingest([
      volume("1", { timestamp: "2026-10-02T00:00:00Z", event_type: "volume.resize.end" }),
    ]);
    expect(moved.result.accepted).toBe(1);
    const rows = await db.sql`select event_id, source from events order by event_id, timestamp`;
    expect(rows.map((r) => [r.event_id, r.source])).toEqual([
      ["ev-1", "collector"],
      ["ev-1", "collector"],
      ["ev-2", "collector"],
    ]);
  });

  test("refused items are dead-lettered as submitted; a scope violation is audited, not dead-lettered", async () => {
    const bad = volume("3", { event_type: "Volume", extra: 1 });
    const foreign = volume("4", { cloud: "c2" });
    const out = await ingest([volume("1"), bad, foreign]);
    expect(out.result.accepted).toBe(1);
    expect(out.result.rejected).toEqual([
      {
        index: 1,
        event_id: "ev-3",
        reason: "the event breaks the member rules",
        errors: [
          { loc: "body.1.extra", msg: "is not a member of an event" },
          {
            loc: "body.1.event_type",
            msg: "must be two or more dot-separated parts of lower-case letters, digits and underscores",
          },
        ],
      },
      { index: 2, event_id: "ev-4", reason: "outside the (platform, cloud) of the credential", errors: [] },
    ]);
    const dead =
      await db.sql`select item_index, event_id, raw_body, reason, request_id, credential_id from rejected_events`;
    expect(dead).toHaveLength(1);
    expect(JSON.parse(dead[0]?.raw_body)).toEqual(bad);
    expect(dead[0]?.credential_id).toBe(principal.id);
    const audit = await db.sql`select actor, action, target, detail from audit_log`;
    expect(audit.map((a) => [a.action, a.target, a.detail.cloud, a.detail.credential_cloud])).toEqual([
      ["events.scope_violation", "ev-4", "c2", "c1"],
    ]);
  });

  test("a batch of refusals only still commits its dead letters; with auth disabled no scope applies", async () => {
    const out = await ingest([{ nope: 1 }, 42], { ...ctx, principal: null });
    expect(out.result.accepted).toBe(0);
    expect(out.result.rejected.map((r) => [r.index, r.event_id])).toEqual([
      [0, null],
      [1, null],
    ]);
    const dead = await db.sql`select raw_body from rejected_events order by item_index`;
    expect(dead.map((d) => d.raw_body)).toEqual(['{"nope":1}', "42"]);
    const open = await ingest([volume("9", { cloud: "elsewhere" })], { ...ctx, principal: null });
    expect(open.result.accepted).toBe(1);
  });

  test("size names replace values before the schema; size_as_reported is the pipeline's", async () => {
    await db.sql`insert into size_names values ('c1', 'volume', 'type', 't-ssd', 'ssd'), ('c2', 'volume', 'type', 't-ssd', 'other')`;
    const own = volume("1");
    (own.payload as Record<string, unknown>).provider = { size_as_reported: { bogus: true }, raw: "kept" };
    await ingest([
      own,
      volume("2", { payload: { state: "available", size: { size_gb: 1, type: "t-hdd" } } }),
    ]);
    const rows = await db.sql`select event_id, payload from events order by event_id`;
    expect(rows[0]?.payload).toEqual({
      state: "available",
      size: { size_gb: 10, type: "ssd" },
      provider: { size_as_reported: { type: "t-ssd" }, raw: "kept" },
    });
    expect(rows[1]?.payload).toEqual({ state: "available", size: { size_gb: 1, type: "t-hdd" } });
    const [row] = await db.sql`select size from current_resources where resource_id = 'vol-1'`;
    expect(row?.size).toEqual({ size_gb: 10, type: "ssd" });
  });

  test("a size the schema refuses is dead-lettered as it arrived; unregistered pairs are counted or refused", async () => {
    await db.sql`insert into size_names values ('c1', 'volume', 'type', 't-ssd', 'ssd')`;
    const badSize = volume("1", { payload: { state: "available", size: { type: "t-ssd" } } });
    const gadget = volume("2", { resource_type: "gadget", payload: { state: "on", size: { n: 1 } } });
    const out = await ingest([badSize, gadget]);
    expect(out.result.rejected).toEqual([
      {
        index: 0,
        event_id: "ev-1",
        reason: "the size does not match the schema registered for its (platform, resource_type)",
        errors: [{ loc: "body.0.payload.size.size_gb", msg: "is required" }],
      },
    ]);
    expect(out.unvalidatedSizes).toEqual([{ platform: "platform_a", resource_type: "gadget", count: 1 }]);
    const [dead] = await db.sql`select raw_body from rejected_events`;
    expect(JSON.parse(dead?.raw_body)).toEqual(badSize);

    const strict = await ingest(
      [volume("3", { resource_type: "gadget", payload: { state: "on", size: { n: 1 } } })],
      {
        ...ctx,
        requireSizeSchema: true,
      },
    );
    expect(strict.result.rejected.map((r) => [r.reason, r.errors])).toEqual([
      [
        "no size schema is registered for its (platform, resource_type) and one is required",
        [{ loc: "body.0.payload.size", msg: "has no registered schema" }],
      ],
    ]);
    expect(strict.unvalidatedSizes).toEqual([]);
  });

  test("payload members the envelope does not name are stored unchanged; the pipeline sets source", async () => {
    const extra = {
      state: "available",
      size: { size_gb: 10, type: "t" },
      attachments: [{ server: "s1" }],
      note: null,
    };
    await ingest([volume("1", { payload: extra })], { ...ctx, pipeline: "reconciliation" });
    const [row] = await db.sql`select source, payload from events`;
    expect(row?.source).toBe("reconciliation");
    expect(row?.payload).toEqual(extra);
  });

  test("keys within the character limits but too many UTF-8 bytes to index are refused, not a failed batch", async () => {
    const wide = "😀".repeat(512);
    const out = await ingest(
      [volume("1", { cloud: wide, resource_type: wide, resource_id: wide, project_id: wide }), volume("2")],
      {
        ...ctx,
        principal: null,
      },
    );
    expect(out.result.accepted).toBe(1);
    expect(out.result.rejected[0]?.errors).toEqual([
      {
        loc: "body.0.resource_id",
        msg: "cloud, resource_type and resource_id together must fit in 2600 bytes of UTF-8",
      },
      { loc: "body.0.project_id", msg: "cloud and project_id together must fit in 2600 bytes of UTF-8" },
    ]);
    // At the byte bound the event is stored and projected.
    const fits = "é".repeat(433); // 866 bytes; three of them make 2598
    const stored = await ingest(
      [volume("3", { cloud: fits, resource_type: fits, resource_id: fits, project_id: fits })],
      {
        ...ctx,
        principal: null,
      },
    );
    expect(stored.result).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
  });

  test("a single-object body locates errors under body", async () => {
    const out = await ingest([volume("1", { project_id: "" })], { ...ctx, single: true });
    expect(out.result.rejected[0]?.errors).toEqual([{ loc: "body.project_id", msg: "must not be empty" }]);
  });

  test("a batch lands whole or not at all", async () => {
    await db.sql.unsafe(`
      create function fail_on_boom() returns trigger language plpgsql as $$
      begin if new.resource_id = 'vol-boom' then raise exception 'boom'; end if; return new; end $$;
      create trigger boom before insert on current_resources for each row execute function fail_on_boom();`);
    try {
      await expect(ingest([volume("1"), { nope: 1 }, volume("boom")])).rejects.toThrow("boom");
      const [counts] = await db.sql`select (select count(*)::int from events) as e,
        (select count(*)::int from rejected_events) as r, (select count(*)::int from current_resources) as c`;
      expect(counts).toEqual({ e: 0, r: 0, c: 0 });
    } finally {
      await db.sql.unsafe("drop trigger boom on current_resources; drop function fail_on_boom()");
    }
  });

  test("a key another batch is storing at the same moment: a duplicate, the rest stored", async () => {
    // The other batch holds ev-2 uncommitted, so this one's COPY waits on it; once the holder commits
    // the COPY fails on the key and the batch runs again on the conflict path (decision 122), which
    // skips the key and stores the rest.
    const holder = await db.sql.reserve();
    try {
      await holder`begin`;
      await holder`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type,
        resource_id, project_id, source, payload)
        values ('ev-2', '2026-10-01T00:00:00Z', 'volume.create.end', 'platform_a', 'c1', 'volume', 'vol-2',
          'p1', 'collector', '{"state": "available", "size": {"size_gb": 10, "type": "t-ssd"}}')`;
      const pending = ingest([volume("1"), volume("2"), volume("3")]);
      // Until the COPY waits on the held key: a lock wait of another backend of this database.
      for (;;) {
        const [waiting] = await db.sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`;
        if ((waiting?.n ?? 0) > 0) break;
        await Bun.sleep(10);
      }
      await holder`commit`;
      expect((await pending).result).toEqual({ accepted: 2, duplicates: 1, rejected: [] });
    } finally {
      holder.release();
    }
    const rows = await db.sql`select event_id from events order by event_id`;
    expect(rows.map((r) => r.event_id)).toEqual(["ev-1", "ev-2", "ev-3"]);
    const [projected] = await db.sql`select count(*)::int as n from current_resources`;
    // The held event was stored by the other batch, which does not fold: only the batch's own two.
    expect(projected?.n).toBe(2);
  });

  test("a stored key claimed for another resource: a duplicate, the rest stored, no row for it", async () => {
    // The COPY meets the stored key and the batch runs again on the conflict path, which skips it:
    // vol-x gets no row, since only stored events are folded.
    await ingest([volume("1")]);
    const out = await ingest([volume("1", { resource_id: "vol-x" }), volume("2")]);
    expect(out.result).toEqual({ accepted: 1, duplicates: 1, rejected: [] });
    const rows = await db.sql`select resource_id from events order by resource_id`;
    expect(rows.map((r) => r.resource_id)).toEqual(["vol-1", "vol-2"]);
    const projected = await db.sql`select resource_id from current_resources order by resource_id`;
    expect(projected.map((r) => r.resource_id)).toEqual(["vol-1", "vol-2"]);
  });

  test("a batch stores its events before it waits for its resources' locks (decision 148)", async () => {
    await ingest([volume("1")]);
    // Another writer of the projection holds vol-1's lock.
    const released = Promise.withResolvers<void>();
    const { holding } = await holdingVol1Lock(released.promise);
    const pending = ingest([resized, volume("2")]);
    // The batch waits on the advisory lock with a transaction id: it has written its events already.
    for (;;) {
      const [waiting] = await db.sql<{ xid: string | null }[]>`select backend_xid::text as xid
        from pg_stat_activity where datname = current_database() and wait_event = 'advisory'`;
      if (waiting) {
        expect(waiting.xid).not.toBeNull();
        break;
      }
      await Bun.sleep(10);
    }
    released.resolve();
    await holding;
    expect((await pending).result).toEqual({ accepted: 2, duplicates: 0, rejected: [] });
    const rows =
      await db.sql`select resource_id, event_count, size from current_resources order by resource_id`;
    expect(rows.map((r) => [r.resource_id, r.event_count, r.size])).toEqual([
      ["vol-1", 2, { size_gb: 20, type: "t-ssd" }],
      ["vol-2", 1, { size_gb: 10, type: "t-ssd" }],
    ]);
  });

  test("a transaction of this process left waiting on it is ended by a batch it blocks (decision 151)", async () => {
    await ingest([volume("1")]);
    // A transaction of the same pool holds vol-1's lock and then never sends its next message, as the
    // driver's lost transactions did.
    const { holding } = await holdingVol1Lock(new Promise(() => {}));
    const lost = holding.catch((error: unknown) => error);
    // The batch waits on the lock, a second later its watchdog ends the lost transaction, and it lands.
    const outcome = await ingestItems({ ...db, stuckAfterSeconds: 1 }, [resized], ctx);
    expect(outcome.result).toEqual({ accepted: 1, duplicates: 0, rejected: [] });
    expect(String(await lost)).toMatch(/terminat|CONNECTION/i);
    const [row] = await db.sql`select event_count, size from current_resources where resource_id = 'vol-1'`;
    expect(row).toEqual({ event_count: 2, size: { size_gb: 20, type: "t-ssd" } });
  });

  test("a create for a resource that has a row already: its row is read after a savepoint (decisions 150, 155)", async () => {
    // The create's batch presumes vol-1 new and does not read its row; the insert of the row fails on
    // the key, the projection's writes go back to the savepoint before them, and the presumed rows are
    // read and folded again, in the same transaction: the events are stored once.
    const inUse = volume("1b", {
      resource_id: "vol-1",
      timestamp: "2026-10-02T00:00:00Z",
      event_type: "volume.resize.end",
      payload: { state: "in-use", size: { size_gb: 20, type: "t-ssd" } },
    });
    await ingest([inUse]);
    // The create arrives after the resize (older: a refold), then a deleted vol-3 is created again.
    await ingest([volume("3")]);
    await ingest([
      volume("3d", {
        resource_id: "vol-3",
        event_type: "volume.delete.end",
        timestamp: "2026-10-03T00:00:00Z",
      }),
    ]);
    const out = await ingest([
      volume("1"),
      volume("2"),
      volume("3c", { resource_id: "vol-3", timestamp: "2026-10-04T00:00:00Z" }),
    ]);
    expect(out.result).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
    expect(out.projection).toEqual({ resources: 3, refolded: 1, events: 3, presumedFound: 2 });
    const rows = await db.sql`select resource_id, state, size, event_count, created_at, deleted_at
      from current_resources order by resource_id`;
    expect(rows.map((r) => [r.resource_id, r.state, r.size, r.event_count, r.deleted_at])).toEqual([
      ["vol-1", "in-use", { size_gb: 20, type: "t-ssd" }, 2, null],
      ["vol-2", "available", { size_gb: 10, type: "t-ssd" }, 1, null],
      ["vol-3", "available", { size_gb: 10, type: "t-ssd" }, 3, null],
    ]);
    expect(rows.map((r) => pgInstant(r.created_at))).toEqual([
      "2026-10-01T00:00:00.000Z",
      "2026-10-01T00:00:00.000Z",
      "2026-10-04T00:00:00.000Z",
    ]);
    const events = await db.sql`select count(*)::int as n from events`;
    expect(events[0]?.n).toBe(6);
  });

  test("events of any month are stored (partitions on demand)", async () => {
    const out = await ingest([
      volume("1", { timestamp: "2003-02-14T10:00:00Z" }),
      volume("2", { timestamp: "2091-07-01T00:00:00Z" }),
    ]);
    expect(out.result.accepted).toBe(2);
    const rows = await db.sql`select timestamp from events order by timestamp`;
    expect(rows.map((r) => pgInstant(r.timestamp))).toEqual([
      "2003-02-14T10:00:00.000Z",
      "2091-07-01T00:00:00.000Z",
    ]);
  });
});

// Issue 8, defects 2 to 5: input PostgreSQL cannot store, or nested deep enough to break a later walk,
// failed the whole batch with a 500. Each is now a refused item beside stored good ones.
describe("input the database cannot store is refused item by item", () => {
  const invalid = "the event breaks the member rules";

  test("NUL and lone surrogates in the event id and member names: dead-lettered in escaped form, the rest stored", async () => {
    const items = [
      volume("1"),
      volume("2", { event_id: "ev-\u0000" }),
      volume("3", { event_id: "ev-\ud800", "x\u0000": 1 }),
      volume("4", { payload: { state: "available", size: { size_gb: 1, type: "t" }, "\udfff": 1 } }),
      volume("5"),
    ];
    const out = await ingest(items);
    expect(out.result).toEqual({
      accepted: 2,
      duplicates: 0,
      rejected: [
        {
          index: 1,
          event_id: "ev-\\u0000",
          reason: invalid,
          errors: [{ loc: "body.1.event_id", msg: "must not contain the NUL character" }],
        },
        {
          index: 2,
          event_id: "ev-\\ud800",
          reason: invalid,
          errors: [
            { loc: "body.2.x\\u0000", msg: "is not a member of an event" },
            {
              loc: "body.2.event_id",
              msg: "must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)",
            },
          ],
        },
        {
          index: 3,
          event_id: "ev-4",
          reason: invalid,
          errors: [
            {
              loc: "body.3.payload.\\udfff",
              msg: "has a member name that must be well-formed Unicode (a lone UTF-16 surrogate cannot be stored)",
            },
          ],
        },
      ],
    });
    const dead =
      await db.sql`select item_index, event_id, raw_body, errors from rejected_events order by item_index`;
    expect(dead.map((d) => [d.item_index, d.event_id])).toEqual([
      [1, "ev-\\u0000"],
      [2, "ev-\\ud800"],
      [3, "ev-4"],
    ]);
    // The raw body is the item as submitted: JSON escapes keep what the database could not hold.
    expect(dead.map((d) => JSON.parse(d.raw_body))).toEqual([items[1], items[2], items[3]]);
    expect((await db.sql`select event_id from events order by event_id`).map((r) => r.event_id)).toEqual([
      "ev-1",
      "ev-5",
    ]);
  });

  test("a scope violation claiming a cloud with NUL in it is audited in escaped form", async () => {
    const out = await ingest([volume("1", { cloud: "c\u0000", event_id: "e\u0000" }), volume("2")]);
    expect(out.result.accepted).toBe(1);
    expect(out.result.rejected.map((r) => [r.index, r.event_id, r.reason])).toEqual([
      [0, "e\\u0000", "outside the (platform, cloud) of the credential"],
    ]);
    const audit = await db.sql`select target, detail from audit_log`;
    expect(audit.map((a) => [a.target, a.detail.cloud])).toEqual([["e\\u0000", "c\\u0000"]]);
  });

  test("a timestamp past year 9999 in UTC and a payload nested past 32 levels are refused, not stored", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const out = await ingest([
      volume("1", { timestamp: "9999-12-31T23:00:00-01:00" }),
      volume("2", { payload: { state: "available", size: { size_gb: 1, type: "t", deep } } }),
      volume("3"),
    ]);
    expect(out.result).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [
        {
          index: 0,
          event_id: "ev-1",
          reason: invalid,
          errors: [
            {
              loc: "body.0.timestamp",
              msg: "must fall within the years 0001 to 9999 once its offset is applied (UTC)",
            },
          ],
        },
        {
          index: 1,
          event_id: "ev-2",
          reason: invalid,
          errors: [
            { loc: "body.1.payload", msg: "must not nest objects and arrays more than 32 levels deep" },
          ],
        },
      ],
    });
    expect((await db.sql`select count(*)::int as n from rejected_events`)[0]?.n).toBe(2);
  });
});
