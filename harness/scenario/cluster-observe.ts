/**
 * What the clustered stack's faults are read by, in the fault tests and the cluster scenario: the
 * collectors' own words about the deliveries they retried (their log lines survive their restarts),
 * and the month carried when the queue, every outbox and the Reporting API say so together.
 */
import postgres from "postgres";
import { queueName } from "../../lib/billing/collector/notification-consumer.ts";
import type { CollectorProcess } from "../collector/collector-process.ts";
import { queueDepth } from "../collector/publisher.ts";
import { waitFor } from "../process/wait-for.ts";
import { collectorCounts } from "./bus-month.ts";
import type { ClusterStack } from "./cluster-stack.ts";

/** POST attempts the collectors retried in a time window, by what answered: a status, or `no answer`. */
export type RetriedDeliveries = Record<string, number>;

const retrying = "the Reporting API did not take the batch; retrying";

/** Each retried POST of the collectors between `from` and `to` (epoch ms), counted by its answer. */
export function retriedDeliveries(
  collectors: readonly CollectorProcess[],
  from: number,
  to = Number.POSITIVE_INFINITY,
): RetriedDeliveries {
  const counts: RetriedDeliveries = {};
  for (const collector of collectors) {
    for (const line of collector.logLines()) {
      if (line.msg !== retrying) continue;
      const at = Date.parse(String(line.time));
      if (at < from || at > to) continue;
      const status = /^(\d{3})\b/.exec(String(line.detail ?? ""))?.[1] ?? "no answer";
      counts[status] = (counts[status] ?? 0) + 1;
    }
  }
  return counts;
}

/** The `host:port` each collector said it consumes from, in order, with when it said so (epoch ms). */
export function brokerSessions(collector: CollectorProcess): { at: number; broker: string }[] {
  return collector
    .logLines()
    .filter((line) => line.msg === "consuming from the broker")
    .map((line) => ({ at: Date.parse(String(line.time)), broker: String(line.broker) }));
}

/** Events stored for `cloud`, the syncs' left out. */
export async function storedEventCount(reportingDbUrl: string, cloud: string): Promise<number> {
  const sql = postgres(reportingDbUrl, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from events
      where cloud = ${cloud} and source <> 'reconciliation'`;
    return row?.n ?? 0;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** A running node's URL of the run's vhost: where the queue is asked about. */
export function runningNodeUrl(stack: ClusterStack): string {
  const index = stack.rabbitmq.nodes.findIndex((node) => node.running);
  const url = stack.amqpUrls[index];
  if (url === undefined) throw new Error("no node of the RabbitMQ cluster is running");
  return url;
}

/**
 * Waits until the month is carried: the queue holds nothing ready, every running collector's outbox
 * is empty, and the Reporting API holds `events` events of the cloud. Counters are not summed: a
 * restarted collector's began again.
 */
export async function clusterDrained(options: {
  stack: ClusterStack;
  cloud: string;
  events: number;
  timeoutMs: number;
}): Promise<{ stored: number; buffered: number; ready: number }> {
  const { stack } = options;
  let seen = { stored: 0, buffered: 0, ready: 0 };
  await waitFor(
    async () => {
      const running = stack.collectors.filter((c) => c.daemon.running);
      const [counts, stored, ready] = await Promise.all([
        Promise.all(running.map((c) => collectorCounts(c).catch(() => null))),
        storedEventCount(stack.reportingDbUrl, options.cloud).catch(() => -1),
        queueDepth(runningNodeUrl(stack), queueName).catch(() => null),
      ]);
      const buffered = counts.reduce((n, c) => n + (c?.buffered ?? Number.NaN), 0);
      seen = { stored, buffered, ready: ready ?? -1 };
      return stored >= options.events && buffered === 0 && ready === 0;
    },
    {
      timeoutMs: options.timeoutMs,
      intervalMs: 500,
      onTimeout: () =>
        new Error(
          `the month was not carried in ${options.timeoutMs / 1000} s: ${seen.stored} of ${options.events} events stored, ${seen.buffered} in the collectors' outboxes, ${seen.ready} ready in the queue`,
        ),
    },
  );
  return seen;
}
