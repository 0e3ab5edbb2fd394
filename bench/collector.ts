/**
 * Collector throughput: notifications per second from a pre-filled queue through the outbox and the
 * Reporting API into the database (the collector in-process, the real API in its own process), beside
 * the broker's raw consume rate of the same queue content (a plain consumer that acknowledges each
 * delivery), in the same run. Prints both, the ratio, and where the collector's time went: the
 * consume phase (deliveries mapped, committed, acknowledged) and the delivery tail after it.
 *
 *   bun bench/collector.ts [--notifications 30000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { novaSamples } from "../fixtures/oslo/samples.ts";
import { startService } from "../harness/services/services.ts";
import { stopSharedServices } from "../harness/test-services.ts";
import { Collector } from "../lib/collector/collector.ts";
import { collectorSettings, deliverySettings } from "../lib/collector/collector-settings.ts";
import { queueName } from "../lib/collector/notification-consumer.ts";
import { declareExchanges, publishLines } from "../lib/collector/testing/publisher.ts";
import { startReportingApi } from "../lib/collector/testing/reporting-api.ts";
import { readConfig } from "../lib/config/read-config.ts";
import type { JsonObject } from "../lib/events/event.ts";
import { createLogger } from "../lib/log/logger.ts";
import { encodeEnvelope } from "../lib/oslo/envelope.ts";
import type { NotificationLine } from "../lib/simulator/notification-line.ts";

const { values } = parseArgs({ options: { notifications: { type: "string", default: "30000" } } });
const total = Number(values.notifications);

function lines(count: number): NotificationLine[] {
  return Array.from({ length: count }, (_, i) => ({
    exchange: "nova",
    routing_key: "notifications.info",
    body: encodeEnvelope({
      ...novaSamples.create,
      message_id: `bench-${i}`,
      payload: { ...(novaSamples.create.payload as JsonObject), instance_id: `instance-${i}` },
    }),
  }));
}

/** Declares the collector's queue (classic, no arguments) bound to nova, and fills it. */
async function prefill(url: string, content: NotificationLine[]): Promise<void> {
  await declareExchanges(url, ["nova"]);
  const client = new AMQPClient(url);
  await client.connect();
  const channel = await client.channel();
  await channel.queueDeclare(queueName, { durable: true });
  await channel.queueBind(queueName, "nova", "notifications.info");
  await client.close();
  await publishLines(url, content, { window: 2000 });
}

/** Seconds a plain consumer takes to drain `count` deliveries, acknowledging each. */
async function rawConsume(url: string, count: number): Promise<number> {
  const client = new AMQPClient(`${url}?frameMax=131072`);
  await client.connect();
  const channel = await client.channel();
  await channel.basicQos(1000);
  const began = performance.now();
  let seen = 0;
  await new Promise<void>((resolve) => {
    void channel.basicConsume(queueName, { noAck: false }, (message) => {
      void message.ack();
      if (++seen === count) resolve();
    });
  });
  const seconds = (performance.now() - began) / 1000;
  await client.close();
  return seconds;
}

const dir = mkdtempSync(join(tmpdir(), "svc-bench-collector-"));
const rabbit = await startService("rabbitmq");
const api = await startReportingApi(dir);
try {
  const content = lines(total);
  const rawUrl = await rabbit.createVhost();
  await prefill(rawUrl, content);
  const rawSeconds = await rawConsume(rawUrl, total);

  const url = await rabbit.createVhost();
  await prefill(url, content);
  const config = readConfig(
    {
      SVC_OSC_AMQP_URL: url,
      SVC_OSC_EXCHANGES: "nova",
      SVC_OSC_QUEUE_TYPE: "classic",
      SVC_OSC_CLOUD: api.cloud,
      SVC_OSC_REPORTING_URL: api.url,
      SVC_OSC_REPORTING_INSECURE: "true",
      SVC_OSC_INGEST_TOKEN: api.token,
      SVC_OSC_OUTBOX_PATH: join(dir, "outbox.sqlite"),
      SVC_OSC_BATCH_MAX: "1000",
      SVC_OSC_SUMMARY_INTERVAL_S: "86400",
      SVC_LOG_LEVEL: "ERROR",
    },
    collectorSettings,
  );
  const collector = new Collector(
    config,
    deliverySettings(config),
    createLogger({ service: "bench", level: "ERROR" }),
  );
  const began = performance.now();
  collector.start();
  let consumed = 0;
  let consumedAt = 0;
  let stored = 0;
  while (stored < total) {
    await Bun.sleep(50);
    consumed += collector.counts.takeInterval().consumed;
    if (consumedAt === 0 && consumed >= total) consumedAt = performance.now();
    const [row] = await api.db.sql<{ n: number }[]>`select count(*)::int as n from events`;
    stored = row?.n ?? 0;
  }
  const seconds = (performance.now() - began) / 1000;
  const consumeSeconds = (consumedAt - began) / 1000;
  await collector.stop();
  const rate = total / seconds;
  const raw = total / rawSeconds;
  console.log(`notifications: ${total}`);
  console.log(`raw consume (ack each):        ${raw.toFixed(0)} /s (${rawSeconds.toFixed(2)} s)`);
  console.log(`collector to the database:     ${rate.toFixed(0)} /s (${seconds.toFixed(2)} s)`);
  console.log(
    `  consume phase (map, commit, ack): ${consumeSeconds.toFixed(2)} s (${(total / consumeSeconds).toFixed(0)} /s)`,
  );
  console.log(`  delivery tail after it:           ${(seconds - consumeSeconds).toFixed(2)} s`);
  console.log(`  POSTs: ${collector.sender.attempts}, final batch size ${collector.sender.batchSize}`);
  console.log(`ratio collector / raw: ${(rate / raw).toFixed(3)}`);
} finally {
  await api.stop();
  await rabbit.stop();
  await stopSharedServices();
  rmSync(dir, { recursive: true, force: true });
}
