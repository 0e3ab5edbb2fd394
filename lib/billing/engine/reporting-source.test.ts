import { beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { reportingDatabaseOfFile } from "../../../harness/reporting/reporting-database.ts";
import type { MonthEvent } from "../metering/meter-resource.ts";
import { monthRows, monthStatement } from "./reporting-source.ts";

const db = reportingDatabaseOfFile();
beforeAll(async () => {
  await db.partitions.ensureFor(["2026-09-30T00:00:00.000Z", "2026-10-15T00:00:00.000Z"]);
});

const to = "2026-11-01T00:00:00.000Z";
const readAt = "2100-01-01T00:00:00.000Z";

/** One connection, as the engine's transaction holds one: a stuck socket shows as a query that never ends. */
const oneConnection = () => postgres(db.url, { max: 1, onnotice: () => {}, connection: { TimeZone: "UTC" } });

async function readMonth(sql: postgres.Sql): Promise<MonthEvent[]> {
  return sql.begin("isolation level repeatable read read only", async (tx) => {
    const rows: MonthEvent[] = [];
    for await (const batch of monthRows(tx, to, readAt)) rows.push(...batch);
    return rows;
  });
}

/** 20,000 events: far more than the driver's 16 KiB stream buffer. */
async function largeMonth() {
  await db.reset();
  await db.sql`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type,
      resource_id, project_id, source, payload)
      select 'e' || n, '2026-10-01T00:00:00Z'::timestamptz + n * interval '1 second', 'volume.create.end',
        'platform_a', 'c1', 'volume', 'v' || (n / 10), 'p1', 'collector', '{"state": "available"}'
      from generate_series(1, 20000) as n`;
}

describe("the month read with COPY", () => {
  test("gives the rows the month's select gives, in its order, values with every escape intact", async () => {
    await db.reset();
    const odd = 'back\\slash "quoted"\ttab\nnewline é ✓';
    await db.sql`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type,
      resource_id, project_id, source, payload) values
      ('e2', '2026-10-02T00:00:00Z', 'volume.resize.end', 'platform_a', 'c1', 'volume', ${odd}, 'p\\1',
        'collector', ${JSON.stringify({ state: "in-use", size: { size_gb: 2.5 }, note: odd, provider: { host: "h" } })}),
      ('e1', '2026-09-30T00:00:00Z', 'volume.create.end', 'platform_a', 'c1', 'volume', ${odd}, 'p\\1',
        'collector', ${JSON.stringify({ state: "available", size: null })}),
      ('e3', '2026-10-01T00:00:00Z', 'compute.instance.create.end', 'platform_a', 'c1', 'instance', 'i1', 'p2',
        'collector', '{}')`;
    const sql = oneConnection();
    try {
      const selected = await sql.begin("isolation level repeatable read read only", (tx) =>
        tx.unsafe<MonthEvent[]>(monthStatement(to, readAt)),
      );
      const copied = await readMonth(sql);
      expect(copied).toEqual([...selected]);
      expect(copied.map((e): unknown[] => [e.event_id, e.resource_id, e.payload])).toEqual([
        ["e3", "i1", {}],
        ["e1", odd, { state: "available", size: null }],
        ["e2", odd, { state: "in-use", size: { size_gb: 2.5 }, note: odd }],
      ]);
    } finally {
      await sql.end();
    }
  });

  // The patch parses a socket read where it lies and joins only a message that spans reads, and hands
  // a COPY's run of rows in one read to the stream as one chunk: rows much longer than a read, among
  // short ones, must come through whole, by COPY and by the select alike.
  test("rows longer than a socket read come through whole", async () => {
    await db.reset();
    await db.sql`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type,
        resource_id, project_id, source, payload)
        select 'e' || n, '2026-10-01T00:00:00Z'::timestamptz + n * interval '1 second', 'volume.update.end',
          'platform_a', 'c1', 'volume', 'v' || (n / 7), 'p1', 'collector',
          jsonb_build_object('state', 'available', 'note', repeat(chr(65 + n % 26), case when n % 50 = 0
            then 150000 + n else n % 300 end))
        from generate_series(1, 3000) as n`;
    const sql = oneConnection();
    try {
      const selected = await sql.begin("isolation level repeatable read read only", (tx) =>
        tx.unsafe<MonthEvent[]>(monthStatement(to, readAt)),
      );
      const copied = await readMonth(sql);
      expect(copied.length).toBe(3000);
      expect(copied).toEqual([...selected]);
      const long = copied.filter((e) => (e.payload.note as string).length >= 150_000);
      expect(long.map((e) => (e.payload.note as string).length - 150_000).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 60 }, (_, i) => (i + 1) * 50),
      );
    } finally {
      await sql.end();
    }
  });

  // postgres.js pauses its socket while a COPY reader lags; a CopyDone read in the same chunk ended the
  // stream with the socket still paused, and the connection's next query (here the COMMIT) never got
  // its answer (porsager/postgres#1016). The patch (patches/postgres@3.4.9.patch) resumes the socket.
  test("a month larger than the driver's buffer, read slowly, leaves the connection serving", async () => {
    await largeMonth();
    const sql = oneConnection();
    try {
      for (let round = 0; round < 3; round++) {
        const read = sql.begin("isolation level repeatable read read only", async (tx) => {
          let rows = 0;
          for await (const batch of monthRows(tx, to, readAt)) {
            rows += batch.length;
            await Bun.sleep(5);
          }
          return rows;
        });
        const outcome = await Promise.race([read, Bun.sleep(10_000).then(() => "stuck")]);
        expect(outcome).toBe(20_000);
        expect([...(await sql<{ one: number }[]>`select 1 as one`)]).toEqual([{ one: 1 }]);
      }
    } finally {
      await sql.end({ timeout: 1 });
    }
  });

  test("a reader that stops early leaves the transaction free for its ROLLBACK", async () => {
    await largeMonth();
    const sql = oneConnection();
    try {
      const failure = await sql
        .begin("isolation level repeatable read read only", async (tx) => {
          for await (const _ of monthRows(tx, to, readAt)) throw new Error("metering failed");
        })
        .then(
          () => null,
          (error: Error) => error.message,
        );
      expect(failure).toBe("metering failed");
      expect([...(await sql<{ one: number }[]>`select 1 as one`)]).toEqual([{ one: 1 }]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
