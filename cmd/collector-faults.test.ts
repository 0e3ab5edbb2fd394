/**
 * Zero loss and zero duplicates under faults (issue 11, acceptance): the collector as its own process
 * between a private RabbitMQ node and the real Reporting API, a simulator month published through it,
 * and after each fault the reporting database holds every event of the month exactly once. The
 * summary lines tell each situation the way docs/collector.md's reading guide says.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CollectorProcess, collectorProcess } from "../harness/collector/collector-process.ts";
import { declareExchanges, publishLines, queueDepth } from "../harness/collector/publisher.ts";
import { type ReportingApi, startReportingApi } from "../harness/collector/reporting-api.ts";
import { type SimulatedMonth, simulatedMonth } from "../harness/collector/simulated-month.ts";
import { until } from "../harness/collector/until.ts";
import type { RabbitmqService } from "../harness/services/rabbitmq.ts";
import { startService } from "../harness/services/services.ts";
import { declaredExchanges } from "../lib/billing/simulator/notification-line.ts";
import { Prng } from "../lib/foundation/random/prng.ts";

let rabbit: RabbitmqService;
let api: ReportingApi;
let dir: string;
// A broker of this file's own: one test restarts it.
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-collector-faults-"));
  [rabbit, api] = await Promise.all([
    startService("rabbitmq"),
    startReportingApi(dir, { databaseGate: true }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([rabbit.stop(), api.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const running: CollectorProcess[] = [];
afterEach(async () => {
  for (const collector of running.splice(0)) await collector.daemon.stop();
  if (!api.daemon.running) await api.daemon.start();
  api.gate?.open();
  await api.db.sql`truncate events, rejected_events, current_resources`;
});

const exchanges = ["nova", "neutron", "platform_a", "glance", "octavia"];

async function setUp(seed: number, env: Record<string, string> = {}, tenants = 10) {
  const url = await rabbit.createVhost();
  await declareExchanges(url, declaredExchanges);
  const month = simulatedMonth({ seed, cloud: api.cloud, tenants, faults: ["duplicates"], exchanges });
  const collector = await collectorProcess({ dir, amqpUrl: url, api, env });
  running.push(collector);
  return { url, month, collector };
}

/** Started, with its queue declared and bound: what is published from now on reaches it. */
async function startBound(collector: CollectorProcess) {
  await collector.daemon.start();
  await until(
    async () => (await collector.get("/readyz")).status,
    (status) => status === 200,
  );
}

function slices<T>(items: readonly T[], count: number): T[][] {
  const size = Math.ceil(items.length / count);
  return Array.from({ length: count }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/** Every event of the month stored exactly once, nothing left on the broker or in the outbox. */
async function expectExactlyOnce(url: string, month: SimulatedMonth, collector: CollectorProcess) {
  await until(
    () => api.storedEvents(),
    (stored) => stored.length >= month.events.length,
  );
  await until(
    () =>
      collector
        .logLines()
        .filter((l) => l.msg === "summary")
        .at(-1),
    (line) => line?.buffered === 0 && line.connected === true,
  );
  expect(await api.storedEvents()).toEqual(month.events);
  expect(await queueDepth(url, "svc-notifications")).toBe(0);
}

function summaries(collector: CollectorProcess) {
  return collector.logLines().filter((l) => l.msg === "summary");
}

describe("zero loss, zero duplicates", () => {
  test("the collector killed with SIGKILL at 20 random points during a month", async () => {
    const { url, month, collector } = await setUp(11, {}, 20);
    const random = new Prng(11, "kills");
    await startBound(collector);
    let kills = 0;
    for (const slice of slices(month.lines, 20)) {
      await publishLines(url, slice);
      // Somewhere while that slice is consumed, committed, acknowledged and posted.
      await Bun.sleep(random.int(0, 400));
      await collector.daemon.kill();
      kills++;
      await collector.daemon.start();
    }
    expect(kills).toBe(20);
    await expectExactlyOnce(url, month, collector);
  }, 300_000);

  test("the broker restarted mid-month: the summary says disconnected, then everything arrives once", async () => {
    const { url, month, collector } = await setUp(12);
    await startBound(collector);
    const [first, second] = slices(month.lines, 2);
    await publishLines(url, first ?? []);
    const restarting = Date.now();
    await rabbit.restart(3000);
    await until(
      () => summaries(collector).filter((l) => Date.parse(String(l.time)) > restarting),
      (lines) => lines.some((l) => l.connected === false) && lines.at(-1)?.connected === true,
    );
    await publishLines(url, second ?? []);
    await expectExactlyOnce(url, month, collector);
  }, 300_000);

  test("the API down for a minute: delivered stays 0 while buffered and its age rise; nothing lost", async () => {
    const { url, month, collector } = await setUp(13);
    await startBound(collector);
    const [first, second, third] = slices(month.lines, 3);
    await publishLines(url, first ?? []);
    await api.daemon.stop();
    const stoppedAt = Date.now();
    await publishLines(url, second ?? []);
    await Bun.sleep(Math.max(0, 60_000 - (Date.now() - stoppedAt)));
    const during = summaries(collector).filter(
      (l) => Date.parse(String(l.time)) > stoppedAt + 5000 && Date.parse(String(l.time)) < stoppedAt + 60_000,
    );
    expect(during.length).toBeGreaterThan(30);
    expect(during.every((l) => l.delivered === 0 && l.connected === true)).toBe(true);
    expect(during.some((l) => Number(l.delivery_errors) > 0)).toBe(true);
    const last = during.at(-1) ?? {};
    expect(Number(last.buffered)).toBeGreaterThan(0);
    expect(Number(last.oldest_buffered_seconds)).toBeGreaterThanOrEqual(45);
    await api.daemon.start();
    await publishLines(url, third ?? []);
    await expectExactlyOnce(url, month, collector);
  }, 300_000);

  test("the reporting database restarted under the API: retried until it is back, nothing lost", async () => {
    const { url, month, collector } = await setUp(14);
    await startBound(collector);
    const [first, second] = slices(month.lines, 2);
    await publishLines(url, first ?? []);
    // As a restart looks from the API: every connection dropped, new ones refused for a while.
    api.gate?.shut();
    await publishLines(url, second ?? []);
    await until(
      () => summaries(collector),
      (lines) => lines.some((l) => Number(l.delivery_errors) > 0),
    );
    await Bun.sleep(3000);
    api.gate?.open();
    // The API must survive its database's restart (issue 8); were it to die, an orchestrator restarts it.
    if (!api.daemon.running) await api.daemon.start();
    await expectExactlyOnce(url, month, collector);
  }, 300_000);

  test("the outbox at its bound: the consumer pauses, the rest waits on the broker, all of it arrives once", async () => {
    const { url, month, collector } = await setUp(15, { SVC_OSC_BUFFER_MAX_EVENTS: "200" });
    await api.daemon.stop();
    await startBound(collector);
    await publishLines(url, month.lines);
    await until(
      () => collector.logLines(),
      (lines) => lines.some((l) => l.msg === "the outbox is at its bound, pausing the consumer"),
    );
    const paused = await until(
      () => summaries(collector).at(-1),
      (l) => l?.connected === true && l.consumed === 0 && l.skipped === 0 && l.unparseable === 0,
    );
    expect(Number(paused?.buffered)).toBeGreaterThanOrEqual(180);
    expect(Number(paused?.buffered)).toBeLessThanOrEqual(200);
    expect(await queueDepth(url, "svc-notifications")).toBeGreaterThan(0);
    await api.daemon.start();
    await expectExactlyOnce(url, month, collector);
    expect(Math.max(...summaries(collector).map((l) => Number(l.buffered)))).toBeLessThanOrEqual(200);
  }, 300_000);
});
