import { beforeAll, describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import fc from "fast-check";
import { checkedResponse } from "../../../../harness/reporting/contract-fetch.ts";
import { reportingDatabaseOfFile } from "../../../../harness/reporting/reporting-database.ts";
import { volumeEvent } from "../../../../harness/reporting/volume-event.ts";
import { Secret } from "../../../foundation/config/secret.ts";
import { createApp } from "../../../foundation/http/create-app.ts";
import { unstorableIn } from "../../../foundation/json/storable-text.ts";
import { createLogger } from "../../../foundation/log/logger.ts";
import { createRegistry } from "../../../foundation/metrics/registry.ts";
import { Prng } from "../../../foundation/random/prng.ts";
import { Authenticator } from "../auth/authenticator.ts";
import { issueIngestCredential } from "../auth/credential-store.ts";
import { readAllProjectionRows } from "../projection/project-resources.ts";
import { rebuildProjection } from "../projection/rebuild.ts";
import { ReportingMetrics } from "../server/reporting-metrics.ts";
import { bodyMaxDepth, ingestRoute } from "./ingest-route.ts";

const db = reportingDatabaseOfFile();
let secret: string;
beforeAll(async () => {
  secret = (await issueIngestCredential(db.db, { platform: "platform_a", cloud: "c1", actor: "test" }))
    .secret;
});

function app() {
  const registry = createRegistry();
  return createApp({
    service: "svc-reporting",
    logger: createLogger({
      service: "svc-reporting",
      level: "ERROR",
      destination: new Writable({ write: (_c, _e, done) => done() }),
    }),
  }).use(
    ingestRoute({
      auth: new Authenticator({ mode: "enforced", sql: db.sql, internalToken: new Secret("internal") }),
      sql: db.sql,
      partitions: db.partitions,
      metrics: new ReportingMetrics(registry),
      requireSizeSchema: false,
    }),
  );
}

type Item = Record<string, unknown>;

/** A valid item with a provider, whose members the fuzz below spoils one at a time. */
const valid = (id: string): Item =>
  volumeEvent(id, {
    timestamp: "2026-11-03T10:00:00Z",
    payload: { state: "available", size: { size_gb: 10, type: "ssd" }, provider: { host: "h1" } },
  });

/** A value nested `levels` deep (objects and arrays alternating) around a leaf. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

// Strings made of any UTF-16 code unit, NUL and lone surrogates likely: what a hostile or broken client
// can put in JSON with \u escapes.
const anyUnit = fc.oneof(
  fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "😀", "é", "a"),
  fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
);
const unstorable = fc
  .string({ unit: anyUnit, minLength: 1, maxLength: 6 })
  .filter((s) => unstorableIn(s) !== null);

/** One way to break an item so that it must be refused (defects 2 to 5 of issue 8, and plain garbage). */
type Breaker = (item: Item) => unknown;
const topMembers = ["event_id", "platform", "cloud", "resource_type", "resource_id", "project_id"] as const;
const breaker: fc.Arbitrary<Breaker> = fc.oneof(
  fc.tuple(fc.constantFrom(...topMembers), unstorable).map(
    ([member, bad]): Breaker =>
      (item) => ({
        ...item,
        [member]: `${item[member]}${bad}`,
      }),
  ),
  unstorable.map(
    (bad): Breaker =>
      (item) => ({ ...item, [bad]: 1 }),
  ),
  fc
    .tuple(fc.constantFrom("state", "provider-key", "provider-value", "size-key", "size-value"), unstorable)
    .map(
      ([where, bad]): Breaker =>
        (item) => {
          const payload = { ...(item.payload as Item) };
          const size = { ...(payload.size as Item) };
          if (where === "state") payload.state = `active${bad}`;
          else if (where === "provider-key") payload.provider = { [bad]: "x" };
          else if (where === "provider-value") payload.provider = { note: [1, { deep: bad }] };
          else if (where === "size-key") payload.size = { ...size, [bad]: 1 };
          else payload.size = { ...size, type: bad };
          return { ...item, payload };
        },
    ),
  fc
    .constantFrom(
      "9999-12-31T23:00:00-01:00",
      "9999-12-31T23:59:59.999-00:01",
      "10000-01-01T00:00:00Z",
      "2026-02-30T00:00:00Z",
      "2026-11-03T10:00:00",
    )
    .map(
      (timestamp): Breaker =>
        (item) => ({ ...item, timestamp }),
    ),
  fc.integer({ min: 32, max: bodyMaxDepth - 8 }).map(
    (levels): Breaker =>
      (item) => ({
        ...item,
        payload: { ...(item.payload as Item), provider: { deep: nested(levels) } },
      }),
  ),
  fc.jsonValue({ stringUnit: anyUnit, maxDepth: 3 }).map(
    (garbage): Breaker =>
      () =>
        garbage,
  ),
);

/** A request that must be refused whole, with the status it must get. */
const wholeBodyRefusal = fc.oneof(
  fc
    .constantFrom(
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "text/csv",
      "application/xml",
    )
    .map((type) => ({ type, body: JSON.stringify([valid("never")]), status: 415 })),
  fc
    .constantFrom("", "[", "{]", "[1,]", "{'a':1}", "nul", "\u0000", '["\\ud800]')
    .map((body) => ({ type: "application/json", body, status: 400 })),
  fc.integer({ min: bodyMaxDepth + 1, max: 200_000 }).map((levels) => ({
    type: "application/json",
    body: `${'[{"a":'.repeat(levels)}1${"}]".repeat(levels)}`,
    status: 400,
  })),
  fc
    .constantFrom("42", '"x"', "null", "true")
    .map((body) => ({ type: "application/json", body, status: 400 })),
);

const request = fc.oneof(
  { weight: 1, arbitrary: wholeBodyRefusal.map((r) => ({ kind: "whole" as const, ...r })) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.array(breaker, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 3 }), fc.nat())
      .map(([breakers, goods, seed]) => ({ kind: "batch" as const, breakers, goods, seed })),
  },
);

describe("POST /api/v1/events under malformed input", () => {
  test("5,000 malformed requests, mixed with valid items: never a 5xx, valid items stored, bad ones refused", async () => {
    const server = app();
    const stored: string[] = [];
    let deadLetters = 0;
    let next = 0;
    const statuses = new Map<number, number>();
    // A seeded sample sent four at a time, as collectors do; a failure names the request by its number.
    const requests = fc.sample(request, { numRuns: 5000, seed: 8 });
    const send = async (req: (typeof requests)[number], number: number) => {
      let type = "application/json";
      let body: string;
      let expected: { status: number; refused?: number[]; goods?: string[] } = { status: 200 };
      if (req.kind === "whole") {
        type = req.type;
        body = req.body;
        expected = { status: req.status };
      } else {
        // Bad items at seeded places among good ones with fresh ids.
        const items: unknown[] = [];
        const refused: number[] = [];
        const goods: string[] = [];
        for (let g = 0; g < req.goods; g++) {
          const id = `fuzz-${next++}`;
          goods.push(id);
          items.push(valid(id));
        }
        req.breakers.forEach((brk, i) => {
          const at = (req.seed + i * 7) % (items.length + 1);
          items.splice(at, 0, brk(valid(`fuzz-${next++}`)));
        });
        items.forEach((item, index) => {
          if (!goods.includes((item as Item | null)?.event_id as string)) refused.push(index);
        });
        body = JSON.stringify(items);
        expected = { status: 200, refused, goods };
      }
      const url = "http://localhost/api/v1/events";
      const res = await checkedResponse(
        "POST",
        url,
        await server.handle(
          new Request(url, {
            method: "POST",
            headers: { authorization: `Bearer ${secret}`, "content-type": type },
            body,
          }),
        ),
      );
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const answer = res.json as {
        accepted?: number;
        duplicates?: number;
        rejected?: { index: number; reason: string }[];
      };
      // On a wrong status the answer is shown, so a 500's problem document says which request failed how.
      expect({ number, status: res.status, answer: res.status === expected.status ? "-" : answer }).toEqual({
        number,
        status: expected.status,
        answer: "-",
      });
      if (expected.refused && expected.goods) {
        expect({
          number,
          accepted: answer.accepted,
          duplicates: answer.duplicates,
          refused: answer.rejected?.map((r) => r.index),
        }).toEqual({ number, accepted: expected.goods.length, duplicates: 0, refused: expected.refused });
        stored.push(...expected.goods);
        deadLetters += (answer.rejected ?? []).filter((r) => !r.reason.startsWith("outside")).length;
      }
    };
    let taken = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (taken < requests.length) {
          const number = taken++;
          await send(requests[number] as (typeof requests)[number], number);
        }
      }),
    );
    // Each status the kinds call for came up, and no other.
    expect([...statuses.keys()].sort()).toEqual([200, 400, 415]);
    const [counts] = await db.sql<{ events: number; stored: number; dead: number }[]>`
      select (select count(*)::int from events) as events,
        (select count(*)::int from events where event_id = any(${stored})) as stored,
        (select count(*)::int from rejected_events) as dead`;
    expect(counts).toEqual({ events: stored.length, stored: stored.length, dead: deadLetters });
  }, 300_000);
});

// Issue 28, defect 5: batches sharing events across two monthly partitions deadlocked (40P01, a 500),
// because COPY into a partitioned table writes a batch partition by partition, in the order the months
// first appear, and batches were fed in event id order. Both ingest paths now write in (timestamp,
// event_id) order (decision 124); with the old order this test met the deadlock in 5 runs of 6.
describe("POST /api/v1/events from concurrent clients sharing events across partitions", () => {
  test("every batch answers 200, every event is stored once, the projection equals a rebuild", async () => {
    const server = app();
    const random = new Prng(28, "ingest:shared-batches");
    // Each round: fresh events over two months, and four batches (the route's concurrency) of random
    // subsets of them, shuffled, sent at once so that their writes overlap.
    const round = (r: number) =>
      Array.from({ length: 200 }, (_, i): Item => {
        const month = random.chance(0.5) ? "10" : "11";
        return {
          ...valid(`shared-${random.nextUint32().toString(16)}-${r}-${i}`),
          timestamp: `2026-${month}-${random.int(10, 28)}T00:00:00Z`,
          event_type: random.chance(0.3) ? "volume.create.end" : "volume.resize.end",
          resource_id: `shared-vol-${random.int(1, 50)}`,
          payload: { state: "available", size: { size_gb: random.int(1, 9) * 10, type: "ssd" } },
        };
      });
    const sample = (pool: readonly Item[]) => {
      const batch = pool.filter(() => random.chance(0.6));
      for (let i = batch.length - 1; i > 0; i--) {
        const j = random.int(0, i);
        [batch[i], batch[j]] = [batch[j] as Item, batch[i] as Item];
      }
      return batch;
    };
    const post = async (batch: readonly Item[]) => {
      const res = await server.handle(
        new Request("http://localhost/api/v1/events", {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify(batch),
        }),
      );
      const answer = (await res.json()) as { accepted: number; duplicates: number; rejected: unknown[] };
      return { status: res.status, ...answer };
    };
    const sent = new Set<string>();
    let accepted = 0;
    for (let r = 0; r < 50; r++) {
      const pool = round(r);
      const batches = Array.from({ length: 4 }, () => sample(pool));
      const answers = await Promise.all(batches.map(post));
      expect(answers.map((a) => [a.status, a.accepted + a.duplicates, a.rejected.length])).toEqual(
        batches.map((b) => [200, b.length, 0]),
      );
      for (const a of answers) accepted += a.accepted;
      for (const b of batches) for (const e of b) sent.add(`${e.event_id}@${e.timestamp}`);
    }
    const [stored] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from events where event_id like 'shared-%'`;
    expect({ stored: stored?.n, accepted }).toEqual({ stored: sent.size, accepted: sent.size });
    const projected = await readAllProjectionRows(db.sql);
    await rebuildProjection(db.sql, {});
    const strip = (rows: typeof projected) => rows.map(({ updatedAt: _, ...row }) => row);
    expect(strip(projected)).toEqual(strip(await readAllProjectionRows(db.sql)));
  }, 120_000);
});
