/**
 * `collector --dump`: the notifications the broker delivers, printed as JSON lines (`dump-line.ts`),
 * and nothing else: no outbox, no delivery, no HTTP. It listens on a private queue bound like the
 * collector's, so it never takes a notification from a running collector (decision 272).
 */

import { dumpLine } from "./dump-line.ts";
import type { ConsumerLogger } from "./notification-consumer.ts";
import { NotificationConsumer } from "./notification-consumer.ts";

interface DumpOptions {
  url: string;
  exchanges: readonly string[];
  topics: readonly string[];
  /** Where each line goes (stdout in the command). */
  write: (line: string) => void;
  log: ConsumerLogger;
}

export function dumpConsumer(options: DumpOptions): NotificationConsumer {
  return new NotificationConsumer({
    url: options.url,
    exchanges: options.exchanges,
    topics: options.topics,
    queue: "private",
    queueType: "classic",
    requireExchanges: false,
    prefetch: 100,
    handle: (deliveries) =>
      deliveries.map((delivery) => {
        options.write(`${dumpLine(delivery)}\n`);
        return "ack";
      }),
    gate: () => ({ open: true }),
    log: options.log,
  });
}
