/**
 * The collector assembled (docs/collector.md#the-collector): broker session → intake → outbox →
 * sender, with the counters, the `summary` line and the HTTP routes. `cmd/collector.ts` reads the
 * settings, makes the logger, serves `app` and handles signals; everything else is wired here, from
 * explicit parts, so tests run the same assembly in-process.
 */

import { createApp } from "../../foundation/http/create-app.ts";
import type { Listenable } from "../../foundation/http/serve.ts";
import type { Logger } from "../../foundation/log/logger.ts";
import { createRegistry } from "../../foundation/metrics/registry.ts";
import { platformA } from "../events/event.ts";
import { CollectorCounts } from "./collector-counts.ts";
import { collectorRoutes } from "./collector-routes.ts";
import type { CollectorConfig, DeliverySettings } from "./collector-settings.ts";
import { EventSender } from "./event-sender.ts";
import { Intake } from "./intake.ts";
import { NotificationConsumer } from "./notification-consumer.ts";
import { Outbox } from "./outbox.ts";
import { prefetchFor } from "./outbox-bound.ts";
import { summaryLine } from "./summary-line.ts";

export const collectorService = "svc-collector";

export class Collector {
  readonly outbox: Outbox;
  readonly counts: CollectorCounts;
  readonly consumer: NotificationConsumer;
  readonly sender: EventSender;
  readonly app: Listenable & { handle(request: Request): Promise<Response> };
  readonly #config: CollectorConfig;
  readonly #logger: Logger;
  #summaryTimer: ReturnType<typeof setInterval> | undefined;
  #lastSummary = Date.now();

  /** Opens the outbox (throws OutboxError when it cannot) and builds every part; nothing runs yet. */
  constructor(config: CollectorConfig, delivery: DeliverySettings, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    const outbox = Outbox.open(delivery.outboxPath, { maxEvents: config.bufferMaxEvents });
    this.outbox = outbox;
    const registry = createRegistry();
    this.counts = new CollectorCounts(registry, () => outbox.depth);
    const intake = new Intake({
      outbox,
      target: { platform: platformA, cloud: delivery.cloud },
      counts: this.counts,
      log: logger,
    });
    this.sender = new EventSender({
      outbox,
      reportingUrl: delivery.reportingUrl,
      token: delivery.ingestToken,
      batchMax: config.batchMax,
      inFlight: config.batchesInFlight,
      counts: this.counts,
      log: logger,
    });
    this.consumer = new NotificationConsumer({
      url: config.amqpUrl.reveal(),
      exchanges: config.exchanges,
      topics: config.topics,
      queueType: config.queueType,
      requireExchanges: config.requireExchanges,
      prefetch: prefetchFor(config.bufferMaxEvents),
      handle: (deliveries) => {
        this.counts.redelivered(deliveries.reduce((n, d) => n + (d.redelivered ? 1 : 0), 0));
        const verdicts = intake.handle(deliveries.map((d) => d.body));
        this.sender.wake();
        return verdicts;
      },
      gate: () => intake.gate(),
      log: logger,
    });
    this.app = createApp({ service: collectorService, logger }).use(
      collectorRoutes({
        connected: () => this.consumer.connected,
        outboxAnswers: () => outbox.check(),
        outboxUnusableSince: () => outbox.unusableSince,
        unhealthyThresholdMs: config.unhealthyThresholdS * 1000,
        registry,
        metricsEnabled: config.metricsEnabled,
      }),
    );
  }

  start(): void {
    this.#logger.info(
      {
        buffered: this.outbox.depth,
        max_events: this.#config.bufferMaxEvents,
        prefetch: prefetchFor(this.#config.bufferMaxEvents),
        batch_max: this.#config.batchMax,
        batches_in_flight: this.#config.batchesInFlight,
        queue_type: this.#config.queueType,
      },
      "collector started",
    );
    this.consumer.start();
    this.sender.start();
    this.#lastSummary = Date.now();
    this.#summaryTimer = setInterval(() => this.#summary(), this.#config.summaryIntervalS * 1000);
  }

  /** The consumer, then the sender (its attempt finishes), then the summary loop; the outbox keeps the rest. */
  async stop(): Promise<void> {
    await this.consumer.stop();
    await this.sender.stop();
    clearInterval(this.#summaryTimer);
    this.outbox.close();
  }

  #summary(): void {
    const now = Date.now();
    let oldest: number | null | undefined;
    try {
      oldest = this.outbox.oldestBufferedAt();
    } catch {
      oldest = undefined;
    }
    const line = summaryLine({
      intervalSeconds: Math.round((now - this.#lastSummary) / 1000),
      connected: this.consumer.connected,
      counts: this.counts.takeInterval(),
      buffered: this.outbox.depth,
      oldestBufferedAt: oldest,
      now,
    });
    this.#lastSummary = now;
    this.#logger.info(line, "summary");
  }
}
