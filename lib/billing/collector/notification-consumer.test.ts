import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { Registry } from "prom-client";
import { novaSamples } from "../../../fixtures/oslo/samples.ts";
import { declareExchanges, publishLines, queueDepth } from "../../../harness/collector/publisher.ts";
import { until } from "../../../harness/collector/until.ts";
import type { RabbitmqService } from "../../../harness/services/rabbitmq.ts";
import { services } from "../../../harness/test-services.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { encodeEnvelope } from "../oslo/envelope.ts";
import type { NotificationLine } from "../simulator/notification-line.ts";
import { CollectorCounts } from "./collector-counts.ts";
import { Intake } from "./intake.ts";
import {
  NotificationConsumer,
  type NotificationConsumerOptions,
  queueName,
} from "./notification-consumer.ts";
import { Outbox } from "./outbox.ts";
import { prefetchFor } from "./outbox-bound.ts";

let rabbit: RabbitmqService;
let dir: string;
beforeAll(async () => {
  rabbit = await services.rabbitmq();
  dir = mkdtempSync(join(tmpdir(), "svc-consumer-"));
}, 90_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface LogLine {
  level: string;
  message: string;
  object: object;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function recordingLogger() {
  const lines: LogLine[] = [];
  const at = (level: string) => (object: object, message: string) => lines.push({ level, message, object });
  return { lines, log: { info: at("info"), warn: at("warn"), error: at("error"), debug: at("debug") } };
}

/** A consumer wired to a fresh outbox, as the collector wires it. */
function collector(url: string, options: Partial<NotificationConsumerOptions> & { maxEvents?: number } = {}) {
  const maxEvents = options.maxEvents ?? 10_000;
  const outbox = Outbox.open(join(dir, `${crypto.randomUUID()}.sqlite`), { maxEvents });
  const registry = new Registry();
  const counts = new CollectorCounts(registry, () => outbox.depth);
  const { lines, log } = recordingLogger();
  const intake = new Intake({
    outbox,
    target: { platform: "platform_a", cloud: "cloud-1" },
    counts,
    log,
    refusalBackoff: { initialMs: 100, maxMs: 200 },
  });
  const consumer = new NotificationConsumer({
    url,
    exchanges: ["nova", "neutron", "platform_a", "glance"],
    topics: ["notifications.info"],
    queueType: "classic",
    requireExchanges: false,
    prefetch: prefetchFor(maxEvents),
    handle: (deliveries) => intake.handle(deliveries.map((d) => d.body)),
    gate: () => intake.gate(),
    log,
    reconnect: { initialMs: 100, maxMs: 400 },
    reprobe: { initialMs: 100, maxMs: 400 },
    ...options,
  });
  cleanups.push(async () => {
    await consumer.stop();
    outbox.close();
  });
  return { consumer, outbox, counts, registry, lines };
}

function instanceCreate(i: number, exchange = "nova"): NotificationLine {
  const message: JsonObject = {
    ...novaSamples.create,
    message_id: `msg-${i}`,
    payload: { ...(novaSamples.create.payload as JsonObject), instance_id: `instance-${i}` },
  };
  return { exchange, routing_key: "notifications.info", body: encodeEnvelope(message) };
}

const everyExchange = ["nova", "neutron", "platform_a", "glance"];

describe("consuming", () => {
  test("binds every topic on every exchange, commits the events, acknowledges, and counts each outcome", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, everyExchange);
    const { consumer, outbox, counts } = collector(url, {
      topics: ["notifications.info", "notifications.warn"],
    });
    consumer.start();
    await consumer.ready();
    const lines: NotificationLine[] = [];
    for (let i = 0; i < 300; i++) lines.push(instanceCreate(i, everyExchange[i % 4]));
    lines.push({
      exchange: "nova",
      routing_key: "notifications.warn",
      body: encodeEnvelope({ ...novaSamples.create, message_id: "warn-1" }),
    });
    lines.push({
      exchange: "nova",
      routing_key: "notifications.error",
      body: encodeEnvelope({ ...novaSamples.create, message_id: "unbound-topic" }),
    });
    lines.push({ exchange: "nova", routing_key: "notifications.info", body: "not json" });
    lines.push({ exchange: "nova", routing_key: "notifications.info", body: "x".repeat(1024 * 1024 + 1) });
    lines.push({
      exchange: "nova",
      routing_key: "notifications.info",
      body: encodeEnvelope({
        ...novaSamples.create,
        event_type: "compute.instance.create.start",
        message_id: "s",
      }),
    });
    await publishLines(url, lines);
    await until(
      () => outbox.depth,
      (d) => d === 301,
    );
    await until(
      () => queueDepth(url, queueName),
      (d) => d === 0,
    );
    const interval = await until(
      () => counts.takeInterval(),
      (c) => c.unparseable === 2,
    );
    expect(interval).toEqual({ consumed: 301, skipped: 1, unparseable: 2, delivered: 0, delivery_errors: 0 });
    const ids = outbox.take(1000).map((row) => (JSON.parse(row.json) as { event_id: string }).event_id);
    expect(new Set(ids).size).toBe(301);
    expect(ids).toContain("warn-1");
    expect(ids).not.toContain("unbound-topic");
    expect(consumer.state).toBe("consuming");
    // Every delivery was acknowledged (groups by one multiple ack): closing requeues none of them.
    await consumer.stop();
    expect(await queueDepth(url, queueName)).toBe(0);
  });

  test("a delivery is acknowledged only after its commit: a consumer stopped with work pending leaves it on the broker", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const { consumer, outbox } = collector(url, { exchanges: ["nova"] });
    consumer.start();
    await consumer.ready();
    await consumer.stop();
    await publishLines(url, [instanceCreate(1), instanceCreate(2)]);
    expect(await queueDepth(url, queueName)).toBe(2);
    expect(outbox.depth).toBe(0);
  });
});

describe("exchanges", () => {
  test("a missing exchange is skipped with a log, the others bound, and it is bound once it appears", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const { consumer, outbox, lines } = collector(url, { exchanges: ["nova", "glance"] });
    consumer.start();
    await consumer.ready();
    expect(consumer.missingExchanges).toEqual(["glance"]);
    expect(lines.find((l) => l.level === "warn")?.message).toBe(
      "the exchange glance does not exist on the broker; skipped, probing again",
    );
    await declareExchanges(url, ["glance"]);
    await until(
      () => consumer.missingExchanges,
      (m) => m.length === 0,
    );
    await publishLines(url, [instanceCreate(1, "glance"), instanceCreate(2, "nova")]);
    await until(
      () => outbox.depth,
      (d) => d === 2,
    );
    expect(lines.some((l) => l.message === "the exchange glance appeared and is bound")).toBe(true);
  });

  test("with none of the exchanges on the broker the session fails and reconnects until one appears", async () => {
    const url = await rabbit.createVhost();
    const { consumer, lines } = collector(url, { exchanges: ["nova", "neutron"] });
    consumer.start();
    await until(
      () => consumer.lastError,
      (e) => e !== undefined,
    );
    expect(consumer.lastError).toBe("none of the exchanges nova, neutron exists on the broker");
    expect(lines.find((l) => l.level === "error")?.message).toBe(
      "none of the exchanges nova, neutron exists on the broker",
    );
    await declareExchanges(url, ["neutron"]);
    await consumer.ready();
    expect(consumer.missingExchanges).toEqual(["nova"]);
  });

  test("SVC_OSC_REQUIRE_EXCHANGES makes one missing exchange fail the session", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const { consumer } = collector(url, { exchanges: ["nova", "glance", "octavia"], requireExchanges: true });
    consumer.start();
    await until(
      () => consumer.lastError,
      (e) => e !== undefined,
    );
    expect(consumer.lastError).toBe(
      "the exchanges glance, octavia are required (SVC_OSC_REQUIRE_EXCHANGES) and missing on the broker",
    );
    expect(consumer.connected).toBe(false);
    await declareExchanges(url, ["glance", "octavia"]);
    await consumer.ready();
    expect(consumer.missingExchanges).toEqual([]);
  });
});

describe("the queue", () => {
  test("quorum is refused on a broker older than 4.0, with the release named, and no queue is declared", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const { consumer } = collector(url, { queueType: "quorum", exchanges: ["nova"] });
    consumer.start();
    await until(
      () => consumer.lastError,
      (e) => e !== undefined,
    );
    expect(consumer.lastError).toMatch(
      /^SVC_OSC_QUEUE_TYPE=quorum needs RabbitMQ 4\.0 or newer; the broker runs 3\.\d+: set SVC_OSC_QUEUE_TYPE=classic or upgrade the broker$/,
    );
    expect(await queueDepth(url, queueName)).toBeNull();
  });

  test("a queue declared earlier with other arguments is refused (406) and left in place with its messages", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const client = new AMQPClient(url);
    await client.connect();
    const channel = await client.channel();
    await channel.queueDeclare(queueName, { durable: true }, { "x-max-length": 50 });
    await channel.basicPublish("", queueName, "kept");
    await client.close();
    const { consumer } = collector(url, { exchanges: ["nova"] });
    consumer.start();
    await until(
      () => consumer.lastError,
      (e) => e !== undefined,
    );
    expect(consumer.lastError).toMatch(
      /^the queue svc-notifications exists with other arguments than SVC_OSC_QUEUE_TYPE=classic declares \(.*PRECONDITION_FAILED.*x-max-length.*\); it is left in place: delete it or set SVC_OSC_QUEUE_TYPE to its type$/,
    );
    expect(await queueDepth(url, queueName)).toBe(1);
  });

  test("an access refusal (403) on an exchange is an error, not a missing exchange", async () => {
    const management = rabbit.managementUrl;
    if (management === undefined) throw new Error("this test needs the harness's private broker");
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova", "glance"]);
    const vhost = decodeURIComponent(new URL(url).pathname.slice(1));
    const user = `collector_${crypto.randomUUID().slice(0, 8)}`;
    const call = (method: string, path: string, body: unknown) =>
      fetch(`${management}/api${path}`, {
        method,
        headers: { authorization: `Basic ${btoa("guest:guest")}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await call("PUT", `/users/${user}`, { password: "pw", tags: "" })).ok).toBe(true);
    cleanups.push(async () => {
      await call("DELETE", `/users/${user}`, {});
    });
    // Rights on the queue and on nova only: glance is out of reach.
    const permission = await call("PUT", `/permissions/${encodeURIComponent(vhost)}/${user}`, {
      configure: "^(svc-notifications|nova)$",
      write: "^(svc-notifications|nova)$",
      read: "^(svc-notifications|nova)$",
    });
    expect(permission.ok).toBe(true);
    const limited = new URL(url);
    limited.username = user;
    limited.password = "pw";
    const { consumer } = collector(limited.toString(), { exchanges: ["nova", "glance"] });
    consumer.start();
    await until(
      () => consumer.lastError,
      (e) => e !== undefined,
    );
    expect(consumer.lastError).toMatch(/^access to the exchange glance is refused \(403\)/);
    expect(consumer.connected).toBe(false);
  });
});

describe("the outbox decides the pace", () => {
  test("at 90 percent of its bound the consumer pauses, leaves the rest on the broker, and resumes below", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const { consumer, outbox, lines } = collector(url, { exchanges: ["nova"], maxEvents: 40 });
    consumer.start();
    await consumer.ready();
    await publishLines(
      url,
      Array.from({ length: 100 }, (_, i) => instanceCreate(i)),
    );
    await until(
      () => consumer.state,
      (s) => s === "paused",
    );
    expect(lines.some((l) => l.message === "the outbox is at its bound, pausing the consumer")).toBe(true);
    expect(outbox.depth).toBeGreaterThanOrEqual(36);
    expect(outbox.depth).toBeLessThanOrEqual(40);
    const seen = new Set<string>();
    await until(
      () => {
        const rows = outbox.take(1000);
        for (const row of rows) seen.add((JSON.parse(row.json) as { event_id: string }).event_id);
        if (rows.length > 0) outbox.remove(rows[0]?.seq ?? 0, rows.at(-1)?.seq ?? 0);
        return seen.size;
      },
      (n) => n === 100,
    );
    expect(await queueDepth(url, queueName)).toBe(0);
  });

  test("an outbox that refuses a write requeues the notifications on the broker and takes them once it recovers", async () => {
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const { consumer, outbox, counts, lines } = collector(url, { exchanges: ["nova"] });
    consumer.start();
    await consumer.ready();
    outbox.refuseWrites(true);
    await publishLines(
      url,
      Array.from({ length: 20 }, (_, i) => instanceCreate(i)),
    );
    await until(
      () => lines.filter((l) => l.message.startsWith("the outbox refuses writes")).length,
      (n) => n >= 2,
    );
    expect(outbox.depth).toBe(0);
    expect(counts.takeInterval().consumed).toBe(0);
    expect(
      await until(
        () => queueDepth(url, queueName),
        (d) => d === 20,
      ),
    ).toBe(20);
    outbox.refuseWrites(false);
    await until(
      () => outbox.depth,
      (d) => d === 20,
    );
    expect(counts.takeInterval().consumed).toBe(20);
    await consumer.stop();
    expect(await queueDepth(url, queueName)).toBe(0);
  });
});

describe("the session", () => {
  test("a connection closed under it fails the session; it reconnects and consumes again", async () => {
    const management = rabbit.managementUrl;
    if (management === undefined) throw new Error("this test needs the harness's private broker");
    const url = await rabbit.createVhost();
    await declareExchanges(url, ["nova"]);
    const { consumer, outbox } = collector(url, { exchanges: ["nova"] });
    consumer.start();
    await consumer.ready();
    const vhost = decodeURIComponent(new URL(url).pathname.slice(1));
    const auth = { authorization: `Basic ${btoa("guest:guest")}` };
    // The management API lists a connection once its stats arrive (every few seconds).
    const connections = await until(
      async () =>
        (await (
          await fetch(`${management}/api/vhosts/${encodeURIComponent(vhost)}/connections`, { headers: auth })
        ).json()) as { name: string }[],
      (list) => list.length === 1,
    );
    for (const connection of connections) {
      await fetch(`${management}/api/connections/${encodeURIComponent(connection.name)}`, {
        method: "DELETE",
        headers: auth,
      });
    }
    await until(
      () => consumer.sessions,
      (n) => n === 2,
    );
    await publishLines(url, [instanceCreate(7)]);
    await until(
      () => outbox.depth,
      (d) => d === 1,
    );
  });
});
