/**
 * The collector's long-lived broker session (docs/collector.md#the-queue-and-the-exchanges): declares the
 * durable queue `svc-notifications`, probes each configured exchange by a passive declare on a channel
 * of its own (none is created), binds every topic on each that exists, reprobes missing ones (1 s
 * doubling to 60 s) and binds them when they appear, and consumes with manual acknowledgement. Any
 * broker error fails the session; it reconnects with backoff. Deliveries are handed over in groups
 * (all that arrived together), so one outbox commit covers many acknowledgements.
 */
import { type AMQPChannel, AMQPConsumer, type AMQPMessage } from "@cloudamqp/amqp-client";
import { type BackoffPolicy, backoffDelay } from "../../foundation/async/backoff.ts";
import { splitUrlList } from "../../foundation/config/fields.ts";
import { BrokerClient, replyCode } from "./broker-client.ts";
import { quorumRefusal } from "./broker-release.ts";
import type { Gate, Verdict } from "./intake.ts";

export const queueName = "svc-notifications";
const consumerTag = "svc-platform_a-collector";
/** `--dump` listens on a queue of its own, so it never takes a notification from the collector. */
const dumpConsumerTag = "svc-platform_a-collector-dump";

/** One delivery as the consumer hands it over. */
interface Delivery {
  body: Uint8Array;
  exchange: string;
  routingKey: string;
}

/** Arguments of the queue per type; a queue that exists with others is refused (406), never deleted. */
function queueArguments(type: "quorum" | "classic"): Record<string, string | number> {
  return type === "quorum" ? { "x-queue-type": "quorum", "x-delivery-limit": -1 } : {};
}

export interface ConsumerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface NotificationConsumerOptions {
  /**
   * The broker's URL, or the URLs of a cluster's nodes comma-separated: each attempt to connect takes
   * the next one, so a session lost with its node is set up again on another (decision 37).
   */
  url: string;
  exchanges: readonly string[];
  topics: readonly string[];
  queueType: "quorum" | "classic";
  requireExchanges: boolean;
  prefetch: number;
  /**
   * `durable`: the queue `svc-notifications`. `private`: a server-named, exclusive, auto-deleted
   * queue bound the same way, gone with the connection (`--dump`, decision 272).
   */
  queue?: "durable" | "private";
  /** Decides each delivery of a group, synchronously (the outbox commit happens inside). */
  handle: (deliveries: readonly Delivery[]) => Verdict[];
  /** Asked before consuming and after each group: a closed gate pauses the consumer. */
  gate: () => Gate;
  log: ConsumerLogger;
  reconnect?: BackoffPolicy;
  reprobe?: BackoffPolicy;
  /** A session not set up within this time (a broker that accepts and never answers) fails. */
  setupTimeoutMs?: number;
}

type ConsumerState = "idle" | "connecting" | "consuming" | "paused" | "waiting" | "stopped";

/** A broker error that ends the session, with the message an operator reads. */
class SessionError extends Error {
  override name = "SessionError";
}

const defaultReconnect: BackoffPolicy = { initialMs: 1000, maxMs: 30_000 };
const defaultReprobe: BackoffPolicy = { initialMs: 1000, maxMs: 60_000 };

interface Session {
  client: BrokerClient;
  channel: AMQPChannel;
  queue: string;
  timers: Set<ReturnType<typeof setTimeout>>;
  pending: AMQPMessage[];
  flushing: boolean;
  consuming: boolean;
  /** A consume or cancel in progress, so a pause and a resume never overlap. */
  switching: Promise<void>;
}

export class NotificationConsumer {
  readonly #options: NotificationConsumerOptions;
  #state: ConsumerState = "idle";
  #session: Session | undefined;
  #attempt = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #readyWaiters: (() => void)[] = [];
  #lastError: string | undefined;
  #missing = new Set<string>();
  #sessions = 0;
  readonly #urls: readonly string[];
  #turn = 0;
  #broker: string | undefined;

  constructor(options: NotificationConsumerOptions) {
    this.#options = options;
    this.#urls = splitUrlList(options.url);
  }

  get state(): ConsumerState {
    return this.#state;
  }

  /** Whether a broker session is up (consuming or paused). */
  get connected(): boolean {
    return this.#state === "consuming" || this.#state === "paused";
  }

  /** Why the last session ended or failed. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** Configured exchanges the broker does not carry (skipped, being reprobed). */
  get missingExchanges(): string[] {
    return [...this.#missing];
  }

  /** Sessions established so far. */
  get sessions(): number {
    return this.#sessions;
  }

  /** `host:port` of the node the current (or last) session is with. */
  get broker(): string | undefined {
    return this.#broker;
  }

  start(): void {
    if (this.#state !== "idle") return;
    void this.#connect();
  }

  /** Resolves once a session is up (now, or after the next connect). */
  ready(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  /**
   * Cancels the consumer, lets the deliveries already received be decided, and closes the
   * connection; the broker requeues anything unacknowledged.
   */
  async stop(): Promise<void> {
    this.#state = "stopped";
    clearTimeout(this.#retryTimer);
    const session = this.#session;
    this.#session = undefined;
    if (session === undefined) return;
    this.#clearTimers(session);
    if (session.consuming) {
      session.consuming = false;
      this.#switch(session, () => session.channel.basicCancel(this.#tag).then(() => {}));
    }
    await session.switching;
    this.#flush(session);
    await closeQuietly(session.client);
  }

  async #connect(): Promise<void> {
    if (this.#state === "stopped") return;
    this.#state = "connecting";
    const url = this.#urls[this.#turn++ % this.#urls.length] as string;
    const client = new BrokerClient(url);
    let session: Session | undefined;
    client.ondisconnect = (error) => {
      if (session !== undefined && session === this.#session)
        this.#lost(error ?? new Error("connection closed"));
    };
    // Errors also reach ondisconnect; this keeps the client from logging them itself.
    client.onerror = () => {};
    // The client sets no deadline on the handshake: a broker that accepts and then stalls (one that
    // is starting or stopping) would hold this attempt forever. Destroying the socket fails every
    // step still waiting (decision 273).
    const setupMs = this.#options.setupTimeoutMs ?? 30_000;
    const deadline = setTimeout(
      () => client.socket?.destroy(new Error(`the broker did not set the session up within ${setupMs} ms`)),
      setupMs,
    );
    try {
      await client.connect();
      const durable = this.#durable;
      if (durable && this.#options.queueType === "quorum") {
        const refusal = quorumRefusal(client.brokerVersion);
        if (refusal !== null) throw new SessionError(refusal);
      }
      const channel = await client.channel();
      const queue = durable
        ? await this.#declareQueue(channel)
        : (await channel.queueDeclare("", { durable: false, exclusive: true, autoDelete: true })).name;
      const { present, missing } = await this.#probeAll(client);
      if (present.length === 0) {
        throw new SessionError(
          `none of the exchanges ${this.#options.exchanges.join(", ")} exists on the broker`,
        );
      }
      if (this.#options.requireExchanges && missing.length > 0) {
        throw new SessionError(
          `the exchange${missing.length > 1 ? "s" : ""} ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} required (SVC_OSC_REQUIRE_EXCHANGES) and missing on the broker`,
        );
      }
      for (const exchange of present) await this.#bind(channel, queue, exchange);
      await channel.basicQos(this.#options.prefetch);
      if (this.#stopped()) {
        clearTimeout(deadline);
        await closeQuietly(client);
        return;
      }
      session = {
        client,
        channel,
        queue,
        timers: new Set(),
        pending: [],
        flushing: false,
        consuming: false,
        switching: Promise.resolve(),
      };
      this.#session = session;
      this.#missing = new Set(missing);
      for (const exchange of missing) {
        this.#options.log.warn(
          { exchange },
          `the exchange ${exchange} does not exist on the broker; skipped, probing again`,
        );
        this.#reprobe(session, exchange, 0);
      }
      clearTimeout(deadline);
      this.#attempt = 0;
      this.#sessions++;
      this.#broker = brokerAddress(url);
      this.#lastError = undefined;
      this.#state = "paused";
      this.#options.log.info(
        {
          queue: queueName,
          broker: this.#broker,
          exchanges: present,
          topics: this.#options.topics,
          prefetch: this.#options.prefetch,
        },
        "consuming from the broker",
      );
      for (const resolve of this.#readyWaiters.splice(0)) resolve();
      this.#steer(session);
    } catch (error) {
      clearTimeout(deadline);
      void closeQuietly(client);
      if (session !== undefined && session === this.#session) this.#session = undefined;
      this.#fail(error);
    }
  }

  get #durable(): boolean {
    return (this.#options.queue ?? "durable") === "durable";
  }

  get #tag(): string {
    return this.#durable ? consumerTag : dumpConsumerTag;
  }

  async #declareQueue(channel: AMQPChannel): Promise<string> {
    const type = this.#options.queueType;
    try {
      const ok = await channel.queueDeclare(
        queueName,
        { durable: true, autoDelete: false, exclusive: false },
        queueArguments(type),
      );
      return ok.name;
    } catch (error) {
      if (replyCode(error) === 406) {
        throw new SessionError(
          `the queue ${queueName} exists with other arguments than SVC_OSC_QUEUE_TYPE=${type} declares (${describeError(error)}); it is left in place: delete it or set SVC_OSC_QUEUE_TYPE to its type`,
          { cause: error },
        );
      }
      throw error;
    }
  }

  /** Passive declares, each on a throwaway channel (a failed one closes its channel). */
  async #probeAll(client: BrokerClient): Promise<{ present: string[]; missing: string[] }> {
    const present: string[] = [];
    const missing: string[] = [];
    for (const exchange of this.#options.exchanges) {
      if (await this.#probe(client, exchange)) present.push(exchange);
      else missing.push(exchange);
    }
    return { present, missing };
  }

  async #probe(client: BrokerClient, exchange: string): Promise<boolean> {
    const probe = await client.channel();
    try {
      await probe.exchangeDeclare(exchange, "topic", { passive: true });
      await probe.close().catch(() => {});
      return true;
    } catch (error) {
      const code = replyCode(error);
      if (code === 404) return false;
      throw accessRefused(exchange, error);
    }
  }

  async #bind(channel: AMQPChannel, queue: string, exchange: string): Promise<void> {
    try {
      for (const topic of this.#options.topics) await channel.queueBind(queue, exchange, topic);
    } catch (error) {
      throw accessRefused(exchange, error);
    }
  }

  #reprobe(session: Session, exchange: string, attempt: number): void {
    const delay = backoffDelay(this.#options.reprobe ?? defaultReprobe, attempt, 0);
    const timer = setTimeout(async () => {
      session.timers.delete(timer);
      if (session !== this.#session) return;
      try {
        if (!(await this.#probe(session.client, exchange))) {
          this.#reprobe(session, exchange, attempt + 1);
          return;
        }
        await this.#bind(session.channel, session.queue, exchange);
        this.#missing.delete(exchange);
        this.#options.log.info({ exchange }, `the exchange ${exchange} appeared and is bound`);
      } catch (error) {
        if (session === this.#session) this.#lost(asError(error));
      }
    }, delay);
    session.timers.add(timer);
  }

  /**
   * Starts or pauses consumption as the gate says; asked again while paused. `consuming` is what was
   * last asked of the broker, set at once, so the steps queued on `switching` alternate.
   */
  #steer(session: Session): void {
    if (session !== this.#session) return;
    const gate = this.#options.gate();
    if (gate.open) {
      if (session.consuming) return;
      session.consuming = true;
      this.#state = "consuming";
      this.#switch(session, async () => {
        const onMessage = (message: AMQPMessage) => this.#receive(session, message);
        // The client registers a consumer only after consume-ok has gone through a few promise hops,
        // while deliveries that follow consume-ok in the same read are dispatched at once: with a
        // backlog, the first ones find no consumer, are dropped unacknowledged and stay stuck until
        // the connection closes (amqp-client.js#146). Registering the tag first closes the gap.
        session.channel.consumers.set(this.#tag, new AMQPConsumer(session.channel, this.#tag, onMessage));
        await session.channel.basicConsume(session.queue, { tag: this.#tag, noAck: false }, onMessage);
      });
      return;
    }
    if (session.consuming) {
      session.consuming = false;
      this.#state = "paused";
      if (gate.reason === "bound")
        this.#options.log.warn({}, "the outbox is at its bound, pausing the consumer");
      this.#switch(session, async () => {
        await session.channel.basicCancel(this.#tag);
      });
    }
    const timer = setTimeout(() => {
      session.timers.delete(timer);
      this.#steer(session);
    }, gate.retryMs);
    session.timers.add(timer);
  }

  #switch(session: Session, step: () => Promise<void>): void {
    session.switching = session.switching.then(step).catch((error: unknown) => {
      if (session === this.#session) this.#lost(asError(error));
    });
  }

  #receive(session: Session, message: AMQPMessage): void {
    session.pending.push(message);
    if (session.pending.length === 1) setImmediate(() => this.#flushAndSteer(session));
  }

  #flushAndSteer(session: Session): void {
    this.#flush(session);
    // Re-steer only on a change: a consuming session whose gate stays open needs nothing.
    if (session.consuming && !this.#options.gate().open) this.#steer(session);
  }

  /** Decides every pending delivery of the session and sends the acknowledgements. */
  #flush(session: Session): void {
    const group = session.pending.splice(0);
    if (group.length === 0) return;
    const verdicts = this.#options.handle(
      group.map((m) => ({
        body: m.body ?? new Uint8Array(0),
        exchange: m.exchange,
        routingKey: m.routingKey,
      })),
    );
    // A failed acknowledgement (the channel is gone) costs a redelivery, deduplicated at ingest.
    const last = group[group.length - 1] as AMQPMessage;
    if (verdicts.length === group.length && verdicts.every((verdict) => verdict === "ack")) {
      // Every earlier delivery of the channel is settled already (groups are settled whole, in
      // order), so one multiple ack settles exactly this group: one frame instead of one per delivery.
      session.channel.basicAck(last.deliveryTag, true).catch(() => {});
      return;
    }
    group.forEach((message, i) => {
      const sent =
        verdicts[i] === "ack"
          ? session.channel.basicAck(message.deliveryTag)
          : session.channel.basicNack(message.deliveryTag, true);
      sent.catch(() => {});
    });
  }

  #lost(error: Error): void {
    const session = this.#session;
    if (session === undefined) return;
    this.#session = undefined;
    this.#clearTimers(session);
    // Deliveries received but not decided are dropped: the broker requeues them with the connection.
    session.pending.length = 0;
    void closeQuietly(session.client);
    this.#fail(error);
  }

  #fail(error: unknown): void {
    if (this.#state === "stopped") return;
    this.#lastError = describeError(error);
    this.#state = "waiting";
    const delay = backoffDelay(this.#options.reconnect ?? defaultReconnect, this.#attempt++, Math.random());
    this.#options.log.error(
      { err: error instanceof SessionError ? undefined : error, retry_in_ms: delay },
      error instanceof SessionError ? error.message : `the broker session failed: ${this.#lastError}`,
    );
    this.#retryTimer = setTimeout(() => void this.#connect(), delay);
  }

  #stopped(): boolean {
    return this.#state === "stopped";
  }

  #clearTimers(session: Session): void {
    for (const timer of session.timers) clearTimeout(timer);
    session.timers.clear();
  }
}

/**
 * A 403 on an exchange (its passive declare on brokers that check it, its bind on every release) is
 * the deployment's mistake, said plainly; other errors go on as they are.
 */
function accessRefused(exchange: string, error: unknown): unknown {
  if (replyCode(error) !== 403) return error;
  return new SessionError(
    `access to the exchange ${exchange} is refused (403): the collector's user needs read on the exchanges and configure, write and read on the queue (${describeError(error)})`,
    { cause: error },
  );
}

/** An orderly close, or the socket dropped when the broker does not answer it within 2 s. */
async function closeQuietly(client: BrokerClient): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      client.socket?.destroy();
      resolve();
    }, 2000);
  });
  await Promise.race([client.close().catch(() => {}), late]);
  clearTimeout(timer);
}

/** `host:port` of a broker URL: what a log line may say of it (never the user or password). */
function brokerAddress(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === "amqps:" ? "5671" : "5672")}`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
