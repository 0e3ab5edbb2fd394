import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RabbitmqService } from "../../../harness/services/rabbitmq.ts";
import { type BusConsumer, consumeBus } from "../../../harness/simulator/bus-consumer.ts";
import { startOtlpReceiver } from "../../../harness/simulator/otlp-receiver.ts";
import { services } from "../../../harness/test-services.ts";
import { createLogger } from "../../foundation/log/logger.ts";
import { NoCollectorError } from "./amqp-publisher.ts";
import { encodeLine } from "./notification-line.ts";
import type { OtlpPushSettings } from "./otlp-traffic-push.ts";
import { platformCredentials } from "./platform-api/platform-api.ts";
import { type BrokerRunReport, monthExchanges, runBrokerMode } from "./run-broker-mode.ts";
import { parseRunOptions } from "./run-options.ts";

setDefaultTimeout(60_000);

let rabbit: RabbitmqService;
let dir: string;
const logger = createLogger({ service: "svc-simulator-test", level: "ERROR" });

beforeAll(async () => {
  rabbit = await services.rabbitmq();
  dir = await mkdtemp(join(tmpdir(), "svc-sim-broker-"));
}, 90_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function options(flags: Record<string, string>) {
  return parseRunOptions({ period: "2026-10", tenants: "2", factor: "0", ...flags }, new Date());
}

async function fileLines(path: string): Promise<string[]> {
  return (await Bun.file(path).text()).split("\n").filter((l) => l !== "");
}

interface Started {
  work: Promise<BrokerRunReport>;
  port: Promise<number>;
  controller: AbortController;
}

function start(
  url: string,
  flags: Record<string, string>,
  out: string | null = null,
  otlp?: OtlpPushSettings,
): Started {
  const controller = new AbortController();
  let resolvePort: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => {
    resolvePort = resolve;
  });
  const parsed = options(flags);
  const work = runBrokerMode({
    options: { ...parsed, out },
    cloud: "cloud-1",
    amqpUrl: url,
    listen: { hostname: "127.0.0.1", port: 0 },
    metricsEnabled: true,
    otlp,
    logger,
    signal: controller.signal,
    onListening: resolvePort,
  });
  return { work, port, controller };
}

async function clock(port: number) {
  return (await fetch(`http://127.0.0.1:${port}/clock`)).json() as Promise<Record<string, unknown>>;
}

async function until<T>(check: () => Promise<T | null>, timeoutMs = 20_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (performance.now() > deadline) throw new Error("timed out");
    await Bun.sleep(50);
  }
}

describe("a month on the bus", () => {
  test("published and consumed, it equals notifications.jsonl; the held share follows the release", async () => {
    const url = await rabbit.createVhost();
    const consumer: BusConsumer = await consumeBus(url, monthExchanges);
    const out = join(dir, "held");
    try {
      const run = start(url, { faults: "held-back,duplicates", "wait-for-collector": "10s" }, out);
      const port = await run.port;
      const published = await fileLines(join(out, "notifications.jsonl"));
      const held = await fileLines(join(out, "held-back.jsonl"));
      expect(held.length).toBeGreaterThan(0);

      const holding = await until(async () => {
        const doc = await clock(port);
        return doc.holding === true ? doc : null;
      });
      expect(holding).toMatchObject({
        factor: 0,
        published: published.length,
        total: published.length + held.length,
        held: held.length,
        period_from: "2026-10-01T00:00:00.000Z",
        period_to: "2026-11-01T00:00:00.000Z",
      });
      expect((await consumer.waitFor(published.length)).map(encodeLine)).toEqual(published);

      // The fake platform API stands beside the control routes while the run holds.
      const auth = await fetch(`http://127.0.0.1:${port}/v3/auth/tokens`, {
        method: "POST",
        body: JSON.stringify({
          auth: {
            identity: {
              methods: ["password"],
              password: { user: { name: platformCredentials.user, password: platformCredentials.password } },
            },
          },
        }),
      });
      expect(auth.status).toBe(201);
      const token = auth.headers.get("x-subject-token") ?? "";
      const servers = await fetch(`http://127.0.0.1:${port}/compute/v2.1/servers/detail`, {
        headers: { "x-auth-token": token },
      });
      expect(((await servers.json()) as { servers: unknown[] }).servers.length).toBeGreaterThan(0);

      const release = await fetch(`http://127.0.0.1:${port}/release`, { method: "POST" });
      expect(release.status).toBe(200);
      expect(await release.json()).toMatchObject({ holding: true, held: held.length });
      const report = await run.work;
      expect(report).toMatchObject({
        released: true,
        stopped: false,
        published: published.length + held.length,
      });
      const all = await consumer.waitFor(published.length + held.length);
      expect(all.slice(published.length).map(encodeLine)).toEqual(held);
      // The endpoint is not served after the run.
      await expect(fetch(`http://127.0.0.1:${port}/clock`)).rejects.toThrow();
    } finally {
      await consumer.close();
    }
  });

  test("a run without a collector waits, then refuses to publish into nothing", async () => {
    const url = await rabbit.createVhost();
    const run = start(url, { "wait-for-collector": "1s" });
    await expect(run.work).rejects.toThrow(NoCollectorError);
    await expect(run.work).rejects.toThrow(/--wait-for-collector 0/);
  });

  test("the clock paces the month, a release while publishing is refused, a rebase speeds it up", async () => {
    const url = await rabbit.createVhost();
    const consumer = await consumeBus(url, monthExchanges);
    try {
      // One virtual second per wall second: the month stalls at its first instant inside October.
      const run = start(url, { faults: "held-back", factor: "1", "wait-for-collector": "10s" });
      const port = await run.port;
      const early = await clock(port);
      expect(early).toMatchObject({ factor: 1, holding: false });
      expect(Date.parse(String(early.virtual_now))).toBeLessThan(Date.parse("2026-10-01T00:10:00Z"));
      const refused = await fetch(`http://127.0.0.1:${port}/release`, { method: "POST" });
      expect(refused.status).toBe(409);

      const put = await fetch(`http://127.0.0.1:${port}/clock`, {
        method: "PUT",
        body: JSON.stringify({ factor: 0 }),
        headers: { "content-type": "application/json" },
      });
      expect(put.status).toBe(200);
      const holding = await until(async () => {
        const doc = await clock(port);
        return doc.holding === true ? doc : null;
      });
      expect(holding.published).toBe(Number(holding.total) - Number(holding.held));
      // Stopped while holding: the held share is never published.
      run.controller.abort();
      const report = await run.work;
      expect(report).toMatchObject({ released: false, stopped: true, published: holding.published });
      await Bun.sleep(200);
      expect(consumer.lines.length).toBe(Number(holding.published));
    } finally {
      await consumer.close();
    }
  });

  test("a run without held-back ends once the month is published; a release is refused", async () => {
    const url = await rabbit.createVhost();
    const consumer = await consumeBus(url, monthExchanges);
    try {
      const run = start(url, { factor: "1", "wait-for-collector": "10s" });
      const port = await run.port;
      const refused = await fetch(`http://127.0.0.1:${port}/release`, { method: "POST" });
      expect(await refused.json()).toMatchObject({
        status: 409,
        detail: "this run holds nothing back: it runs without the held-back switch",
      });
      await fetch(`http://127.0.0.1:${port}/clock`, { method: "PUT", body: '{"factor": 0}' });
      const report = await run.work;
      expect(report).toMatchObject({ held: 0, released: false, stopped: false });
      expect((await consumer.waitFor(report.published)).length).toBe(report.published);
    } finally {
      await consumer.close();
    }
  });

  test("with SVC_SIM_OTLP_URL the traffic is pushed on the grid up to the month's end", async () => {
    const url = await rabbit.createVhost();
    const consumer = await consumeBus(url, monthExchanges);
    const receiver = startOtlpReceiver();
    try {
      const run = start(url, { "metrics-interval": "6h", "wait-for-collector": "10s" }, null, {
        url: new URL(receiver.url),
        user: "u",
        password: "p",
      });
      expect(await run.work).toMatchObject({ stopped: false });
      const instants = new Set(receiver.points.map((p) => p.atMs));
      expect(instants.has(Date.parse("2026-10-01T06:00:00Z"))).toBe(true);
      expect(Math.max(...instants)).toBe(Date.parse("2026-11-01T00:00:00Z"));
    } finally {
      await receiver.stop();
      await consumer.close();
    }
  });
});
