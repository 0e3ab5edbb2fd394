import { AMQPClient } from "@cloudamqp/amqp-client";
import type { NotificationLine } from "../../lib/billing/simulator/notification-line.ts";

/**
 * A stand-in collector for tests: the collector's queue bound to the given exchanges (declared here as
 * the simulator declares them), consumed with acknowledgements, each delivery kept as the line it was.
 */
export interface BusConsumer {
  readonly lines: NotificationLine[];
  /** Resolves once `count` lines have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<NotificationLine[]>;
  close(): Promise<void>;
}

export async function consumeBus(
  url: string,
  exchanges: readonly string[],
  queue = "svc-notifications",
): Promise<BusConsumer> {
  const client = new AMQPClient(url);
  await client.connect();
  const channel = await client.channel();
  await channel.queueDeclare(queue, { durable: true });
  for (const exchange of exchanges) {
    await channel.exchangeDeclare(exchange, "topic", { durable: true });
    await channel.queueBind(queue, exchange, "#");
  }
  const lines: NotificationLine[] = [];
  let waiters: (() => void)[] = [];
  await channel.basicConsume(queue, { noAck: false }, async (message) => {
    lines.push({
      exchange: message.exchange,
      routing_key: message.routingKey,
      body: message.bodyToString() ?? "",
    });
    await message.ack();
    for (const wake of waiters) wake();
    waiters = [];
  });
  return {
    lines,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = performance.now() + timeoutMs;
      while (lines.length < count) {
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`only ${lines.length} of ${count} lines arrived`);
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), Bun.sleep(left)]);
      }
      return lines.slice(0, count);
    },
    async close() {
      await client.close();
    },
  };
}
