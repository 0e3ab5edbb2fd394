/**
 * A small publisher for tests and the bench: puts notification lines (`notifications.jsonl` shape) on
 * a broker the way oslo.messaging does, persistent and with publisher confirms, until the simulator
 * publishes by itself.
 */
import { AMQPClient } from "@cloudamqp/amqp-client";
import type { NotificationLine } from "../../lib/billing/simulator/notification-line.ts";

/** Declares durable topic exchanges, as the services do at their start. */
export async function declareExchanges(url: string, exchanges: readonly string[]): Promise<void> {
  const client = new AMQPClient(url);
  await client.connect();
  try {
    const channel = await client.channel();
    for (const exchange of exchanges) await channel.exchangeDeclare(exchange, "topic", { durable: true });
  } finally {
    await client.close();
  }
}

/**
 * Publishes `lines` in order with confirms, at most `window` unconfirmed at once, and resolves when
 * the broker has confirmed them all.
 */
export async function publishLines(
  url: string,
  lines: Iterable<NotificationLine>,
  options: { window?: number } = {},
): Promise<number> {
  const window = options.window ?? 500;
  const client = new AMQPClient(url);
  await client.connect();
  let published = 0;
  try {
    const channel = await client.channel();
    await channel.confirmSelect();
    let inFlight: Promise<number>[] = [];
    for (const line of lines) {
      inFlight.push(
        channel.basicPublish(line.exchange, line.routing_key, line.body, {
          deliveryMode: 2,
          contentType: "application/json",
        }),
      );
      published++;
      if (inFlight.length >= window) {
        await Promise.all(inFlight);
        inFlight = [];
      }
    }
    await Promise.all(inFlight);
  } finally {
    await client.close();
  }
  return published;
}

/** Messages ready in a queue (a passive declare), or null when the queue does not exist. */
export async function queueDepth(url: string, queue: string): Promise<number | null> {
  const client = new AMQPClient(url);
  await client.connect();
  try {
    const channel = await client.channel();
    const ok = await channel.queueDeclare(queue, { passive: true }).catch(() => null);
    return ok === null ? null : ok.messageCount;
  } finally {
    await client.close().catch(() => {});
  }
}
