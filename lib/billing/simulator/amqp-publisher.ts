import { AMQPClient } from "@cloudamqp/amqp-client";
import { backoffDelay } from "../../foundation/async/backoff.ts";
import { splitUrlList } from "../../foundation/config/fields.ts";
import type { Logger } from "../../foundation/log/logger.ts";
import type { NotificationLine } from "./notification-line.ts";

/** Where published notifications go: resolves once the broker has confirmed the line. */
export interface NotificationBus {
  publish(line: NotificationLine): Promise<void>;
  close(): Promise<void>;
}

/** The queue the collector consumes (docs/simulator.md#publishing-on-the-broker): its consumer is what `--wait-for-collector` waits for. */
const collectorQueue = "svc-notifications";

/** The broker refused or could not be reached when the run began: the run ends with exit 1. */
class BrokerUnavailableError extends Error {}

/** No collector consumed within `--wait-for-collector`: publishing now would lose the month. */
export class NoCollectorError extends Error {}

interface Pending {
  line: NotificationLine;
  resolve: () => void;
}

const reconnect = { initialMs: 1000, maxMs: 30_000 };

/**
 * What oslo.messaging sets on a notification: JSON in UTF-8. Persistent, so a confirmed line survives
 * a broker restart in a durable queue.
 */
const properties = { contentType: "application/json", contentEncoding: "utf-8", deliveryMode: 2 } as const;

/** The URL with AMQP heartbeats on unless it asks otherwise: a dead connection must not hang a confirm. */
function withHeartbeat(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has("heartbeat")) u.searchParams.set("heartbeat", "10");
  return u.toString();
}

/** A broker error's message without anything of the URL (user and password stay out of logs). */
function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Publishes notification lines with publisher confirms (decision 232). Each line's promise resolves
 * when the broker confirms it. When the connection drops mid-month, the publisher reconnects with a
 * backoff and publishes again, in order, every line not yet confirmed; a line confirmed before the
 * drop is never sent twice, one in flight may be (ingest deduplicates it by message id).
 *
 * Exchanges are made sure of at each connection: an existing one is used as it is (a passive declare
 * on a throwaway channel), a missing one is declared as a durable topic exchange, the type oslo uses.
 * Given the URLs of a cluster's nodes (comma-separated), each connection takes the next one, so the
 * month goes on through another node when one dies (decision 37).
 */
export class AmqpPublisher implements NotificationBus {
  private client: AMQPClient | null = null;
  private channel: Awaited<ReturnType<AMQPClient["channel"]>> | null = null;
  private readonly pending: Pending[] = [];
  private reconnecting: Promise<void> | null = null;
  private closed = false;
  private turn = 0;

  private constructor(
    private readonly urls: readonly string[],
    private readonly exchanges: readonly string[],
    private readonly logger: Logger,
  ) {}

  /** Connects and makes sure of the exchanges; a broker (every node of a list) that refuses now ends the run. */
  static async connect(options: {
    url: string;
    exchanges: readonly string[];
    logger: Logger;
  }): Promise<AmqpPublisher> {
    const publisher = new AmqpPublisher(
      splitUrlList(options.url).map(withHeartbeat),
      options.exchanges,
      options.logger,
    );
    // Each node of a list once: the run begins if any of them takes it.
    for (let attempt = 1; ; attempt++) {
      try {
        await publisher.open();
        return publisher;
      } catch (error) {
        await publisher.client?.close().catch(() => {});
        if (attempt < publisher.urls.length) continue;
        throw new BrokerUnavailableError(
          `cannot publish on the broker of SVC_SIM_AMQP_URL: ${reason(error)}`,
          {
            cause: error,
          },
        );
      }
    }
  }

  publish(line: NotificationLine): Promise<void> {
    return new Promise((resolve) => {
      const entry = { line, resolve };
      this.pending.push(entry);
      if (this.reconnecting === null) this.send(entry);
    });
  }

  /**
   * Waits until a consumer reads the collector's queue (decision 233), polling once a second with a
   * passive declare on a throwaway channel; throws NoCollectorError after `timeoutMs`.
   */
  async waitForCollector(timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    let logged = false;
    for (;;) {
      if (signal.aborted) return false;
      if ((await this.consumersOfCollectorQueue()) > 0) return true;
      if (!logged) {
        this.logger.info(
          { queue: collectorQueue, wait_seconds: timeoutMs / 1000 },
          "waiting for a collector to consume the queue",
        );
        logged = true;
      }
      if (performance.now() >= deadline) {
        throw new NoCollectorError(
          `no collector consumed the queue ${collectorQueue} within ${timeoutMs / 1000} s: start the collector, or pass --wait-for-collector 0 to publish without waiting`,
        );
      }
      await Bun.sleep(Math.min(1000, Math.max(0, deadline - performance.now())));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.close().catch(() => {});
  }

  private async consumersOfCollectorQueue(): Promise<number> {
    const client = this.client;
    if (client === null || client.closed) return 0;
    const probe = await client.channel();
    try {
      const ok = await probe.queueDeclare(collectorQueue, { passive: true });
      return ok.consumerCount;
    } catch {
      // A missing queue closes the probe channel: no collector yet.
      return 0;
    } finally {
      if (!probe.closed) await probe.close().catch(() => {});
    }
  }

  private async open(): Promise<void> {
    const client = new AMQPClient(this.urls[this.turn++ % this.urls.length] as string);
    this.client = client;
    await client.connect();
    for (const exchange of this.exchanges) {
      const probe = await client.channel();
      try {
        await probe.exchangeDeclare(exchange, "topic", { passive: true });
        await probe.close();
      } catch {
        const declare = await client.channel();
        await declare.exchangeDeclare(exchange, "topic", { durable: true });
        await declare.close();
      }
    }
    const channel = await client.channel();
    await channel.confirmSelect();
    this.channel = channel;
  }

  private send(entry: Pending): void {
    const channel = this.channel;
    if (channel === null) return;
    channel.basicPublish(entry.line.exchange, entry.line.routing_key, entry.line.body, properties).then(
      () => {
        const index = this.pending.indexOf(entry);
        if (index >= 0) this.pending.splice(index, 1);
        entry.resolve();
      },
      (error: unknown) => this.lost(error),
    );
  }

  /** Every unconfirmed publish fails together when the connection goes; reconnect once for all of them. */
  private lost(error: unknown): void {
    if (this.closed || this.reconnecting !== null) return;
    this.logger.warn(
      { err_message: reason(error), unconfirmed: this.pending.length },
      "the broker connection was lost; reconnecting to publish the unconfirmed notifications again",
    );
    this.channel = null;
    this.reconnecting = this.reconnectLoop().finally(() => {
      this.reconnecting = null;
    });
  }

  private async reconnectLoop(): Promise<void> {
    await this.client?.close().catch(() => {});
    for (let attempt = 0; !this.closed; attempt++) {
      await Bun.sleep(backoffDelay(reconnect, attempt, Math.random()));
      if (this.closed) return;
      try {
        await this.open();
      } catch (error) {
        await this.client?.close().catch(() => {});
        this.logger.warn(
          { err_message: reason(error), attempt: attempt + 1 },
          "reconnecting to the broker failed",
        );
        continue;
      }
      this.logger.info({ unconfirmed: this.pending.length }, "reconnected to the broker");
      for (const entry of [...this.pending]) this.send(entry);
      return;
    }
  }
}
