/**
 * The WebSocket stream's fan-out (decision 353). Each subscriber has a filter and a cursor (the last
 * seq it has been given or has no interest in). A subscriber that asked for `since` first catches up
 * from the event store, a page at a time and only while its socket has room (the rest waits for
 * `drain`), then goes live: each change is serialised once and sent to every live subscriber whose
 * filter it passes. The store is written before the hub hears of a change, and both happen inside
 * one synchronous commit, so the hand-over from catching up to live loses and repeats nothing.
 *
 * A live subscriber whose unsent bytes pass `maxBufferedBytes` is cut (decision 371): it is sent
 * nothing more, and once the bytes it was already sent have drained the socket is closed with 4008,
 * so the close frame goes out behind them and reaches the client whenever it reads again (a close
 * sent at once sat behind the unsent bytes, and Bun drops a closing socket that has not answered in
 * 15 s: a bare EOF, 1006). The server's memory stays bounded and the others are not held up. It
 * resumes with `since=<the last seq it received>` from the store, losing nothing within the
 * retention. A cut is counted when it is decided, once per client.
 */
import type { OvsdbLogger } from "../../ovsdb/ovsdb-client.ts";
import { type ChangeEvent, eventJson } from "./change-event.ts";
import { type EventFilter, matchesFilter } from "./event-filter.ts";
import type { EventStore } from "./event-store.ts";

/** What the hub needs of a socket (Bun's ServerWebSocket fits through a thin adapter). */
export interface StreamSocket {
  /** Bun's status: bytes sent, -1 queued under backpressure, 0 dropped (closed or over Bun's limit). */
  send(text: string): number;
  bufferedAmount(): number;
  close(code: number, reason: string): void;
}

export interface HubLimits {
  maxClients: number;
  /** Unsent bytes beyond which a live subscriber is closed. */
  maxBufferedBytes: number;
  /** Events read from the store per catch-up step. */
  pageSize: number;
}

export const defaultHubLimits: HubLimits = {
  maxClients: 100,
  maxBufferedBytes: 4 * 1024 * 1024,
  pageSize: 500,
};

export const slowConsumerCode = 4008;

export interface Subscriber {
  readonly socket: StreamSocket;
  readonly filter: EventFilter;
  cursor: number;
  live: boolean;
  closed: boolean;
  /** Cut for being too slow: sent nothing more, closed with 4008 once drained. */
  cut: boolean;
}

export interface HubStats {
  clients: number;
  sent: number;
  closedSlow: number;
  maxBufferedSeen: number;
}

const change = (json: string) => `{"type":"change",${json.slice(1)}`;

interface ChangeHubOptions {
  limits?: HubLimits;
  log?: OvsdbLogger;
}

export class ChangeHub {
  private readonly subscribers = new Set<Subscriber>();
  private sent = 0;
  private closedSlow = 0;
  private maxBufferedSeen = 0;
  private readonly limits: HubLimits;
  private readonly log: OvsdbLogger | undefined;

  constructor(
    private readonly store: EventStore,
    options: ChangeHubOptions = {},
  ) {
    this.limits = options.limits ?? defaultHubLimits;
    this.log = options.log;
  }

  get full(): boolean {
    return this.subscribers.size >= this.limits.maxClients;
  }

  stats(): HubStats {
    return {
      clients: this.subscribers.size,
      sent: this.sent,
      closedSlow: this.closedSlow,
      maxBufferedSeen: this.maxBufferedSeen,
    };
  }

  /**
   * Greets the socket and starts its stream: live at once, or catching up from `since`. A `since`
   * older than the store's oldest event gets a `gap` message naming what is gone.
   */
  open(socket: StreamSocket, filter: EventFilter): Subscriber {
    const { seq: latest } = this.store.last();
    const { oldest_seq: oldest } = this.store.bounds();
    const since = filter.since;
    const subscriber: Subscriber = {
      socket,
      filter,
      cursor: since ?? latest,
      live: since === undefined,
      closed: false,
      cut: false,
    };
    this.subscribers.add(subscriber);
    this.send(
      subscriber,
      JSON.stringify({ type: "hello", latest_seq: latest, oldest_seq: oldest, since: since ?? null }),
    );
    if (since !== undefined) {
      const firstKept = oldest ?? latest + 1;
      if (since < firstKept - 1) {
        this.send(subscriber, JSON.stringify({ type: "gap", after: since, resume: firstKept }));
      }
      this.pump(subscriber);
    }
    return subscriber;
  }

  /** The socket's close handler. */
  close(subscriber: Subscriber): void {
    subscriber.closed = true;
    this.subscribers.delete(subscriber);
  }

  /** The socket has room again: a catching-up subscriber reads on, a cut one is closed once drained. */
  drain(subscriber: Subscriber): void {
    if (subscriber.cut) this.closeCut(subscriber);
    else if (!subscriber.live) this.pump(subscriber);
  }

  /** The change feed's sink. */
  broadcast(events: readonly ChangeEvent[]): void {
    for (const subscriber of this.subscribers) {
      if (!subscriber.live || subscriber.cut) continue;
      for (const event of events) {
        if (event.seq <= subscriber.cursor) continue;
        if (!matchesFilter(subscriber.filter, event)) {
          subscriber.cursor = event.seq;
          continue;
        }
        const status = this.send(subscriber, change(eventJson(event)));
        if (status === 0) break;
        subscriber.cursor = event.seq;
        // Checked at each message that waits in the socket, so one large batch cannot pass the bound.
        if (status < 0 && this.tooSlow(subscriber)) break;
      }
    }
  }

  private pump(subscriber: Subscriber): void {
    const lowWater = this.limits.maxBufferedBytes / 4;
    while (!subscriber.live && !subscriber.closed) {
      if (subscriber.socket.bufferedAmount() > lowWater) return;
      const page = this.store.query({
        ...subscriber.filter,
        since: subscriber.cursor,
        limit: this.limits.pageSize,
      });
      for (const event of page) {
        if (this.send(subscriber, change(event.json)) === 0) return;
        subscriber.cursor = event.seq;
      }
      if (page.length < this.limits.pageSize) {
        // Caught up: from here on the broadcast brings the rest (nothing can commit in between).
        subscriber.cursor = Math.max(subscriber.cursor, this.store.last().seq);
        subscriber.live = true;
      }
    }
  }

  /**
   * Sends one message and returns Bun's status: -1 queued behind what the client has not read yet,
   * 0 dropped (the socket is closing: its close handler follows).
   */
  private send(subscriber: Subscriber, text: string): number {
    const status = subscriber.socket.send(text);
    if (status === 0) this.close(subscriber);
    else this.sent++;
    return status;
  }

  /** Cuts a live subscriber whose unsent bytes passed the bound; true when it did. */
  private tooSlow(subscriber: Subscriber): boolean {
    const buffered = subscriber.socket.bufferedAmount();
    this.maxBufferedSeen = Math.max(this.maxBufferedSeen, buffered);
    if (buffered <= this.limits.maxBufferedBytes) return false;
    subscriber.cut = true;
    this.closedSlow++;
    this.log?.warn(
      { buffered_bytes: buffered, resume_since: subscriber.cursor },
      "websocket client too slow; cut off",
    );
    this.closeCut(subscriber);
    return true;
  }

  /** Closes a cut subscriber with 4008 once nothing is left to send before the close frame. */
  private closeCut(subscriber: Subscriber): void {
    if (subscriber.closed || subscriber.socket.bufferedAmount() > 0) return;
    this.close(subscriber);
    subscriber.socket.close(slowConsumerCode, "slow consumer: resume with since=<the last seq received>");
  }
}
