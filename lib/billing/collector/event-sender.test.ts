import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { type ApiProxy, startApiProxy } from "../../../harness/collector/api-proxy.ts";
import { type ReportingApi, startReportingApi } from "../../../harness/collector/reporting-api.ts";
import { until } from "../../../harness/collector/until.ts";
import { Secret } from "../../foundation/config/secret.ts";
import type { CanonicalEvent } from "../events/event.ts";
import { CollectorCounts } from "./collector-counts.ts";
import { EventSender, type EventSenderOptions, eventsUrl } from "./event-sender.ts";
import { Outbox } from "./outbox.ts";

let dir: string;
let api: ReportingApi;
let proxy: ApiProxy;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-sender-"));
  api = await startReportingApi(dir);
  proxy = startApiProxy(api.url);
}, 90_000);
afterAll(async () => {
  proxy.stop();
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  proxy.maxBodyBytes = undefined;
  proxy.failWith = undefined;
  proxy.poison = undefined;
  proxy.failEvery = undefined;
  proxy.release();
  proxy.requests.length = 0;
  proxy.maxActive = 0;
  await api.db.sql`truncate events, rejected_events, current_resources`;
});

function event(i: number, extra: Partial<CanonicalEvent> = {}): CanonicalEvent {
  return {
    event_id: `evt-${i}`,
    timestamp: "2026-10-03T12:00:05.123Z",
    event_type: "compute.instance.create.end",
    platform: "platform_a",
    cloud: "cloud-1",
    resource_type: "instance",
    resource_id: `instance-${i}`,
    project_id: "project-1",
    source: "collector",
    payload: { state: "active", size: { vcpus: 1, ram_gb: 2, disk_gb: 20, flavor: "m1.small" } },
    ...extra,
  };
}

/** Waits until the sender has emptied `outbox`. */
const drained = (outbox: Outbox) =>
  until(
    () => outbox.depth,
    (d) => d === 0,
  );

/** The API holds `n` events, each once. */
async function expectStoredOnce(n: number) {
  const ids = (await api.storedEvents()).map((e) => e.event_id);
  expect({ rows: ids.length, distinct: new Set(ids).size }).toEqual({ rows: n, distinct: n });
}

function sender(options: Partial<EventSenderOptions> & { events?: unknown[] } = {}) {
  const outbox = Outbox.open(join(dir, `${crypto.randomUUID()}.sqlite`), { maxEvents: 100_000 });
  if (options.events !== undefined) outbox.add(options.events.map((e) => JSON.stringify(e)));
  const counts = new CollectorCounts(new Registry(), () => outbox.depth);
  const lines: { level: string; message: string; object: Record<string, unknown> }[] = [];
  const at = (level: string) => (object: object, message: string) =>
    lines.push({ level, message, object: object as Record<string, unknown> });
  const sending = new EventSender({
    outbox,
    reportingUrl: new URL(proxy.url),
    token: new Secret(api.token),
    batchMax: 500,
    inFlight: 3,
    counts,
    log: { info: at("info"), warn: at("warn"), error: at("error") },
    retry: { initialMs: 50, maxMs: 200 },
    idleMs: 50,
    ...options,
  });
  cleanups.push(async () => {
    await sending.stop();
    outbox.close();
  });
  return { sending, outbox, counts, lines };
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

describe("delivering", () => {
  test("posts the outbox in batches, removes what the API took, and counts it", async () => {
    const { sending, outbox, counts } = sender({ events: range(1200).map((i) => event(i)) });
    sending.start();
    await drained(outbox);
    expect((await api.storedEvents()).length).toBe(1200);
    expect(proxy.requests.length).toBe(3);
    expect(counts.takeInterval()).toEqual({
      consumed: 0,
      skipped: 0,
      unparseable: 0,
      delivered: 1200,
      delivery_errors: 0,
    });
  });

  test("up to inFlight batches go at once, each its own rows, each removed after its own answer", async () => {
    proxy.hold();
    const { sending, outbox, counts } = sender({ events: range(3000).map((i) => event(i)), batchMax: 200 });
    sending.start();
    await until(
      () => proxy.active,
      (n) => n === 3,
    );
    expect(outbox.depth).toBe(3000);
    proxy.release();
    await drained(outbox);
    await expectStoredOnce(3000);
    expect(proxy.maxActive).toBe(3);
    expect(proxy.requests.length).toBe(15);
    expect(counts.takeInterval()).toMatchObject({ delivered: 3000, delivery_errors: 0 });
  });

  test("a batch that fails among others in flight keeps its rows until its own retry lands; none lost, none twice", async () => {
    proxy.failEvery = 3;
    const { sending, outbox, counts } = sender({ events: range(2000).map((i) => event(i)), batchMax: 100 });
    sending.start();
    await drained(outbox);
    await expectStoredOnce(2000);
    const interval = counts.takeInterval();
    // A 503 from the proxy reached no API: every event was taken once, none as a duplicate.
    expect(interval.delivered).toBe(2000);
    expect(interval.delivery_errors).toBe(proxy.requests.length - 20);
  });

  test("events added later wake an idle sender; a second post of stored events counts as delivered (duplicates)", async () => {
    const { sending, outbox, counts } = sender({ idleMs: 60_000 });
    sending.start();
    await Bun.sleep(100);
    outbox.add(range(10).map((i) => JSON.stringify(event(i))));
    sending.wake();
    await drained(outbox);
    outbox.add(range(10).map((i) => JSON.stringify(event(i))));
    sending.wake();
    await drained(outbox);
    expect((await api.storedEvents()).length).toBe(10);
    expect(counts.takeInterval().delivered).toBe(20);
  });

  test("refused items are logged one warning each and removed, never retried; the rest is stored", async () => {
    const bad = [event(1, { project_id: "" }), event(2, { event_type: "Not A Type" })];
    const { sending, outbox, counts, lines } = sender({ events: [event(0), ...bad, event(3)] });
    sending.start();
    await drained(outbox);
    await Bun.sleep(200);
    expect(proxy.requests.length).toBe(1);
    expect((await api.storedEvents()).map((e) => e.event_id)).toEqual(["evt-0", "evt-3"]);
    const warnings = lines.filter((l) => l.message === "the Reporting API refused an event; it is dropped");
    expect(warnings.map((w) => [w.object.index, w.object.event_id])).toEqual([
      [1, "evt-1"],
      [2, "evt-2"],
    ]);
    expect(counts.takeInterval()).toMatchObject({ delivered: 2, delivery_errors: 2 });
  });
});

describe("413", () => {
  test("a 413 halves the batch until it fits, then acceptance grows it back; nothing is lost", async () => {
    const one = Buffer.byteLength(JSON.stringify(event(0)));
    proxy.maxBodyBytes = one * 60;
    const { sending, outbox, lines } = sender({ events: range(1000).map((i) => event(i)) });
    sending.start();
    await drained(outbox);
    expect((await api.storedEvents()).length).toBe(1000);
    const halvings = lines.filter(
      (l) => l.message === "the Reporting API did not take the batch whole; halving it",
    );
    expect(halvings.map((h) => h.object.batch).slice(0, 4)).toEqual([250, 125, 62, 31]);
    proxy.maxBodyBytes = undefined;
    outbox.add(range(2000, 5000).map((i) => JSON.stringify(event(i))));
    sending.wake();
    await drained(outbox);
    // It went down to 31 above; with batches in flight it may already be growing before the second
    // fill, so only where it ends is certain: back at the maximum.
    expect(sending.batchSize).toBe(500);
  });

  test("only a single event above 64 KiB refused alone is dropped", async () => {
    const big = event(1, { payload: { state: "active", provider: { note: "x".repeat(70 * 1024) } } });
    proxy.maxBodyBytes = 64 * 1024;
    const { sending, outbox, counts, lines } = sender({ events: [event(0), big, event(2)] });
    sending.start();
    await drained(outbox);
    expect((await api.storedEvents()).map((e) => e.event_id)).toEqual(["evt-0", "evt-2"]);
    const dropped = lines.filter(
      (l) => l.message === "the Reporting API refused an event above 64 KiB (413); it is dropped",
    );
    expect(dropped.map((d) => d.object.event_id)).toEqual(["evt-1"]);
    expect(counts.takeInterval().delivery_errors).toBe(1);
  });

  test("a single event under 64 KiB answered 413 is kept and retried", async () => {
    proxy.maxBodyBytes = 10;
    const { sending, outbox, lines } = sender({ events: [event(0)] });
    sending.start();
    await until(
      () => lines.filter((l) => l.level === "error").length,
      (n) => n >= 3,
    );
    expect(outbox.depth).toBe(1);
    proxy.maxBodyBytes = undefined;
    await drained(outbox);
    expect((await api.storedEvents()).length).toBe(1);
  });
});

describe("failures", () => {
  test("5xx and transport failures are retried with backoff and nothing leaves the outbox meanwhile", async () => {
    proxy.failWith = 503;
    const { sending, outbox, counts, lines } = sender({ events: range(30).map((i) => event(i)) });
    sending.start();
    await until(
      () => proxy.requests.length,
      (n) => n >= 4,
    );
    expect(outbox.depth).toBe(30);
    expect(lines.find((l) => l.level === "warn")?.object.detail).toBe("503");
    proxy.failWith = undefined;
    await drained(outbox);
    expect((await api.storedEvents()).length).toBe(30);
    const interval = counts.takeInterval();
    expect(interval.delivered).toBe(30);
    expect(interval.delivery_errors).toBeGreaterThanOrEqual(4);
  });

  test("an API that does not answer at all: the events wait; a wrong credential: 401 retried, never dropped", async () => {
    const { sending, outbox, lines } = sender({
      events: [event(0)],
      reportingUrl: new URL("http://127.0.0.1:1"),
    });
    sending.start();
    await until(
      () => lines.length,
      (n) => n >= 2,
    );
    expect(outbox.depth).toBe(1);
    const wrong = sender({ events: [event(5)], token: new Secret("ingest_not-a-credential") });
    wrong.sending.start();
    await until(
      () => wrong.lines.length,
      (n) => n >= 2,
    );
    expect(wrong.lines[0]?.object.detail).toMatch(/^401/);
    expect(wrong.outbox.depth).toBe(1);
    expect(JSON.stringify(wrong.lines)).not.toContain("not-a-credential");
  });

  test("a batch the API cannot read (400) is split; the one event it cannot read alone is dropped", async () => {
    proxy.poison = "poisoned";
    const { sending, outbox, lines } = sender({
      events: [event(0), event(1), event(2, { resource_id: "poisoned" }), event(3)],
    });
    sending.start();
    await drained(outbox);
    expect((await api.storedEvents()).map((e) => e.event_id)).toEqual(["evt-0", "evt-1", "evt-3"]);
    expect(
      lines
        .filter((l) => l.message === "the Reporting API cannot read an event (400); it is dropped")
        .map((l) => l.object.event_id),
    ).toEqual(["evt-2"]);
  });

  test("stop lets the attempt in flight finish and keeps what is left", async () => {
    const { sending, outbox } = sender({ events: range(1500).map((i) => event(i)), batchMax: 100 });
    sending.start();
    await until(
      () => outbox.depth,
      (d) => d < 1500,
    );
    await sending.stop();
    const left = outbox.depth;
    expect((await api.storedEvents()).length).toBe(1500 - left);
  });
});

test("events go to <base>/api/v1/events, keeping a path prefix", () => {
  expect(eventsUrl(new URL("https://api.example")).toString()).toBe("https://api.example/api/v1/events");
  expect(eventsUrl(new URL("https://api.example/reporting/")).toString()).toBe(
    "https://api.example/reporting/api/v1/events",
  );
});
