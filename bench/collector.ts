/**
 * Collector throughput: notifications per second from a pre-filled queue through the outbox and the
 * Reporting API into the database (the collector in-process, the real API in its own process), beside
 * the broker's raw consume rate of the same queue content (a plain consumer that acknowledges each
 * delivery), in the same run. Where the time goes, each phase on the same content:
 *
 * - raw: the broker's rate, the baseline;
 * - intake: the collector with no API to reach (map, commit to the outbox, acknowledge): its own cost;
 * - API: the events that intake buffered, posted straight to the API by as many clients as the
 *   collector keeps batches in flight: what the API and its database take, without the collector;
 * - the collector end to end, once per `--in-flight` value (1 is the old sender);
 * - raw again: the neighbours' load drifts, so the baseline is the mean of the two raw phases.
 *
 * Each phase prints its rate, the ratio to that baseline, and the CPU each party spent per 1000
 * notifications (this process, the API's, PostgreSQL's, RabbitMQ's): on a shared machine wall time
 * follows the neighbours, CPU much less. Their sum gives the most the phase could reach with every
 * core of the machine busy for it alone (cores × 1000 / CPU per 1000), the ceiling to compare a goal
 * with. A second table gives the kernel's part of that CPU and the
 * minor page faults per 1000: on our VMs a fault costs about 10 µs, and freshly touched memory was
 * much of where the time went (decision 277).
 *
 *   bun bench/collector.ts [--notifications 20000] [--in-flight 1,3] [--batch 1000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AMQPClient } from "@cloudamqp/amqp-client";
import { novaSamples } from "../fixtures/oslo/samples.ts";
import { declareExchanges, publishLines } from "../harness/collector/publisher.ts";
import { startReportingApi } from "../harness/collector/reporting-api.ts";
import { type Usage, usageMeter } from "../harness/process/process-table.ts";
import { startService } from "../harness/services/services.ts";
import { services, stopSharedServices } from "../harness/test-services.ts";
import { Collector } from "../lib/billing/collector/collector.ts";
import { collectorSettings, deliverySettings } from "../lib/billing/collector/collector-settings.ts";
import { queueName } from "../lib/billing/collector/notification-consumer.ts";
import { encodeEnvelope } from "../lib/billing/oslo/envelope.ts";
import type { NotificationLine } from "../lib/billing/simulator/notification-line.ts";
import { readConfig } from "../lib/foundation/config/read-config.ts";
import type { JsonObject } from "../lib/foundation/json/json-value.ts";
import { createLogger } from "../lib/foundation/log/logger.ts";
import { serviceAllocatorEnv } from "../lib/foundation/process/allocator-env.ts";

// The collector runs in this process: with the allocator setting it is deployed with (decision 277),
// unless the caller's environment names one (`MIMALLOC_PURGE_DELAY=100` is Bun's default).
if (process.env.MIMALLOC_PURGE_DELAY === undefined) {
  const child = Bun.spawnSync([process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, ...serviceAllocatorEnv() },
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exit(child.exitCode ?? 1);
}

const { values } = parseArgs({
  options: {
    notifications: { type: "string", default: "20000" },
    "in-flight": { type: "string", default: "1,3" },
    batch: { type: "string", default: "1000" },
  },
});
const total = Number(values.notifications);
const inFlights = (values["in-flight"] ?? "1,3").split(",").map(Number);
const batch = Number(values.batch);

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

const dir = mkdtempSync(join(tmpdir(), "svc-bench-collector-"));
const rabbit = await startService("rabbitmq");
const api = await startReportingApi(dir);
const pg = await services.postgres();

const parties = ["bench", "api", "postgres", "rabbitmq"] as const;

interface Spent {
  seconds: number;
  /** What each party used. */
  usage: Record<(typeof parties)[number], Usage>;
}

/** This process's usage so far. */
function ownUsage(): Usage {
  const { userCPUTime, systemCPUTime, minorPageFault } = process.resourceUsage();
  return { user: userCPUTime / 1e6, system: systemCPUTime / 1e6, minorFaults: minorPageFault };
}

/** Times `work` and meters what every party spends on it. */
async function measure(work: () => Promise<void>): Promise<Spent> {
  const meters = {
    api: usageMeter(() => (api.daemon.pid === undefined ? [] : [api.daemon.pid])),
    postgres: usageMeter(() => pg.processes()),
    rabbitmq: usageMeter(() => rabbit.processes()),
  };
  const self = ownUsage();
  const began = performance.now();
  await work();
  const seconds = (performance.now() - began) / 1000;
  const own = ownUsage();
  return {
    seconds,
    usage: {
      bench: {
        user: own.user - self.user,
        system: own.system - self.system,
        minorFaults: own.minorFaults - self.minorFaults,
      },
      api: meters.api.stop(),
      postgres: meters.postgres.stop(),
      rabbitmq: meters.rabbitmq.stop(),
    },
  };
}

/** Drains `count` deliveries with a plain consumer, acknowledging each. */
async function rawConsume(url: string, count: number): Promise<void> {
  const client = new AMQPClient(`${url}?frameMax=131072`);
  await client.connect();
  const channel = await client.channel();
  await channel.basicQos(1000);
  let seen = 0;
  await new Promise<void>((resolve) => {
    void channel.basicConsume(queueName, { noAck: false }, (message) => {
      void message.ack();
      if (++seen === count) resolve();
    });
  });
  await client.close();
}

function collectorOn(url: string, reportingUrl: string, inFlight: number): Collector {
  const config = readConfig(
    {
      SVC_OSC_AMQP_URL: url,
      SVC_OSC_EXCHANGES: "nova",
      SVC_OSC_QUEUE_TYPE: "classic",
      SVC_OSC_CLOUD: api.cloud,
      SVC_OSC_REPORTING_URL: reportingUrl,
      SVC_OSC_REPORTING_INSECURE: "true",
      SVC_OSC_INGEST_TOKEN: api.token,
      SVC_OSC_OUTBOX_PATH: join(dir, `outbox-${crypto.randomUUID()}.sqlite`),
      SVC_OSC_BATCH_MAX: String(batch),
      SVC_OSC_BATCHES_IN_FLIGHT: String(inFlight),
      SVC_OSC_SUMMARY_INTERVAL_S: "86400",
      SVC_LOG_LEVEL: "ERROR",
    },
    collectorSettings,
  );
  return new Collector(config, deliverySettings(config), createLogger({ service: "bench", level: "ERROR" }));
}

/** Polls `done` every 20 ms; resolves with the instant `consumed` first held, if it did. */
async function poll(done: () => boolean, consumed: () => boolean): Promise<number | undefined> {
  let consumedAt: number | undefined;
  while (!done()) {
    await Bun.sleep(20);
    if (consumedAt === undefined && consumed()) consumedAt = performance.now();
  }
  return consumedAt;
}

/** The collector with an API address nobody answers: its intake alone. Returns the buffered events. */
async function intakeOnly(url: string): Promise<{ spent: Spent; events: string[] }> {
  const collector = collectorOn(url, "http://127.0.0.1:9", 1);
  let consumed = 0;
  const spent = await measure(async () => {
    collector.start();
    await poll(
      () => {
        consumed += collector.counts.takeInterval().consumed;
        return consumed >= total;
      },
      () => true,
    );
  });
  const events = collector.outbox.take(total).map((row) => row.json);
  await collector.stop();
  return { spent, events };
}

/** The buffered events posted straight to the API in batches by `clients` at once. */
async function apiDirect(events: string[], clients: number): Promise<Spent> {
  const bodies: string[] = [];
  for (let i = 0; i < events.length; i += batch) bodies.push(`[${events.slice(i, i + batch).join(",")}]`);
  let next = 0;
  const spent = await measure(async () => {
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < bodies.length) {
          const response = await fetch(`${api.url}/api/v1/events`, {
            method: "POST",
            headers: { authorization: `Bearer ${api.token}`, "content-type": "application/json" },
            body: bodies[next++],
          });
          if (response.status !== 200) throw new Error(`the API answered ${response.status}`);
          await response.arrayBuffer();
        }
      }),
    );
  });
  await storedAll();
  return spent;
}

/** Checks the database holds every event once, and empties it for the next phase. */
async function storedAll(): Promise<void> {
  const [row] = await api.db.sql<{ n: number }[]>`select count(*)::int as n from events`;
  if (row?.n !== total) throw new Error(`the database holds ${row?.n} events of ${total}`);
  await api.db.sql`truncate events, rejected_events, current_resources`;
}

interface EndToEnd {
  spent: Spent;
  consumeSeconds: number;
  posts: number;
}

async function endToEnd(url: string, inFlight: number): Promise<EndToEnd> {
  const collector = collectorOn(url, api.url, inFlight);
  let consumed = 0;
  let delivered = 0;
  let consumedAt: number | undefined;
  const began = performance.now();
  const spent = await measure(async () => {
    collector.start();
    consumedAt = await poll(
      () => {
        const interval = collector.counts.takeInterval();
        consumed += interval.consumed;
        delivered += interval.delivered;
        return delivered >= total;
      },
      () => consumed >= total,
    );
  });
  await collector.stop();
  await storedAll();
  return {
    spent,
    consumeSeconds: ((consumedAt ?? performance.now()) - began) / 1000,
    posts: collector.sender.attempts,
  };
}

const per1000 = (n: number) => String(Math.round((n * 1000) / total)).padStart(6);

/** Cores the machine has: what every party shares. */
const cores = navigator.hardwareConcurrency;

/**
 * One phase: its rate, the ratio to the baseline, each party's CPU per 1000 notifications, their sum,
 * and the rate that sum allows when every party runs on this machine's cores and nothing else does:
 * the most any phase could reach here, however its work were scheduled.
 */
function row(label: string, spent: Spent, raw: number): void {
  const rate = total / spent.seconds;
  const seconds = parties.map((p) => spent.usage[p].user + spent.usage[p].system);
  const all = seconds.reduce((a, b) => a + b, 0);
  const cpu = seconds.map((s) => per1000(s * 1000)).join("");
  const ceiling = String(Math.round((cores * total) / all)).padStart(8);
  console.log(
    `${label.padEnd(40)}${spent.seconds.toFixed(2).padStart(7)} s ${String(Math.round(rate)).padStart(7)} /s ${(rate / raw).toFixed(3).padStart(7)}  ${cpu}${per1000(all * 1000)}${ceiling} /s`,
  );
}

/** The kernel's part of each party's CPU, and the minor page faults that are much of it on a VM. */
function kernelRow(label: string, spent: Spent): void {
  const system = parties.map((p) => per1000(spent.usage[p].system * 1000)).join("");
  const faults = parties.map((p) => per1000(spent.usage[p].minorFaults)).join("");
  console.log(`${label.padEnd(40)}${system}   ${faults}`);
}

try {
  const content = lines(total);
  const vhost = async () => {
    const url = await rabbit.createVhost();
    await prefill(url, content);
    return url;
  };
  const rawUrl = await vhost();
  const raw = await measure(() => rawConsume(rawUrl, total));
  const intake = await intakeOnly(await vhost());
  const clients = Math.max(...inFlights);
  const direct = await apiDirect(intake.events, clients);
  const runs: [number, EndToEnd][] = [];
  for (const inFlight of inFlights) runs.push([inFlight, await endToEnd(await vhost(), inFlight)]);
  const rawAgainUrl = await vhost();
  const rawAgain = await measure(() => rawConsume(rawAgainUrl, total));

  // The neighbours' load drifts during a run: the baseline is the mean of the first and last phase.
  const rawRate = (total / raw.seconds + total / rawAgain.seconds) / 2;
  console.log(
    `notifications: ${total}, batch ${batch}, MIMALLOC_PURGE_DELAY=${process.env.MIMALLOC_PURGE_DELAY} (collector and API)`,
  );
  console.log(
    `${"".padEnd(40)}${"wall".padStart(9)} ${"rate".padStart(9)} ${"/ raw".padStart(7)}  CPU ms per 1000: bench    api  postgres rabbitmq  all; at ${cores} cores busy`,
  );
  row("raw consume (ack each), first", raw, rawRate);
  row("raw consume (ack each), last", rawAgain, rawRate);
  row("collector intake only (map, commit, ack)", intake.spent, rawRate);
  row(`API direct, ${clients} clients`, direct, rawRate);
  for (const [inFlight, run] of runs)
    row(`collector to the database, ${inFlight} in flight`, run.spent, rawRate);
  console.log(
    `\n${"".padEnd(40)}system CPU ms per 1000: bench api postgres rabbitmq; minor faults per 1000: the same`,
  );
  kernelRow("raw consume, first", raw);
  kernelRow("raw consume, last", rawAgain);
  kernelRow("collector intake only", intake.spent);
  kernelRow(`API direct, ${clients} clients`, direct);
  for (const [inFlight, run] of runs)
    kernelRow(`collector to the database, ${inFlight} in flight`, run.spent);
  for (const [inFlight, run] of runs) {
    console.log(
      `  ${inFlight} in flight: consume phase ${run.consumeSeconds.toFixed(2)} s (${Math.round(total / run.consumeSeconds)} /s), delivery tail ${(run.spent.seconds - run.consumeSeconds).toFixed(2)} s, ${run.posts} POSTs`,
    );
  }
} finally {
  await api.stop();
  await rabbit.stop();
  await stopSharedServices();
  rmSync(dir, { recursive: true, force: true });
}
