// The hub's cuts on a scripted socket: a live client whose socket holds back past the bound gets
// nothing more, even within one batch, and 4008 only once what it was sent has drained; each cut is
// counted once, whatever ends it.
import { describe, expect, test } from "bun:test";
import { testEvent as event } from "../../../../harness/netview/test-events.ts";
import { openStateDb } from "../state/state-db.ts";
import { ChangeHub, type StreamSocket, slowConsumerCode } from "./change-hub.ts";
import { EventStore } from "./event-store.ts";

/** A socket whose client has stopped reading: every message after the hello waits in its buffer. */
class StalledSocket implements StreamSocket {
  buffered = 0;
  readonly sent: string[] = [];
  readonly closes: number[] = [];
  send(text: string): number {
    this.sent.push(text);
    if (this.sent.length === 1) return text.length;
    this.buffered += text.length;
    return -1;
  }
  bufferedAmount(): number {
    return this.buffered;
  }
  close(code: number): void {
    this.closes.push(code);
  }
}

function setUp() {
  const hub = new ChangeHub(
    new EventStore(openStateDb(undefined), { maxAgeMs: 3_600_000, maxEvents: 1000 }),
    {
      limits: { maxClients: 10, maxBufferedBytes: 1000, pageSize: 100 },
    },
  );
  const socket = new StalledSocket();
  const subscriber = hub.open(socket, { limit: 100 });
  const burst = (from: number, n: number) =>
    hub.broadcast(Array.from({ length: n }, (_, i) => event(from + i)));
  return { hub, socket, subscriber, burst };
}

describe("ChangeHub cuts", () => {
  test("past the bound within one batch: nothing more is sent, and 4008 follows the drain", () => {
    const { hub, socket, subscriber, burst } = setUp();
    burst(1, 50);
    expect(hub.stats().closedSlow).toBe(1);
    // The hello, then messages until the buffer passed 1,000 bytes, then nothing.
    const sentAtCut = socket.sent.length;
    expect(sentAtCut).toBeLessThan(20);
    expect(socket.buffered).toBeGreaterThan(1000);
    burst(51, 10);
    expect(socket.sent.length).toBe(sentAtCut);
    expect(socket.closes).toEqual([]);
    hub.drain(subscriber);
    expect(socket.closes).toEqual([]);
    socket.buffered = 0;
    hub.drain(subscriber);
    expect(socket.closes).toEqual([slowConsumerCode]);
    hub.close(subscriber);
    expect(hub.stats()).toMatchObject({ clients: 0, closedSlow: 1 });
  });

  test("a cut client that closes itself, or whose line drops, is counted once", () => {
    const { hub, subscriber, burst } = setUp();
    burst(1, 50);
    hub.close(subscriber);
    hub.close(subscriber);
    hub.drain(subscriber);
    expect(hub.stats()).toMatchObject({ clients: 0, closedSlow: 1 });
  });

  test("a client that reads is never cut", () => {
    const { hub } = setUp();
    const reader: StreamSocket = { send: (text) => text.length, bufferedAmount: () => 0, close: () => {} };
    hub.open(reader, { limit: 100 });
    hub.broadcast(Array.from({ length: 200 }, (_, i) => event(i + 1)));
    expect(hub.stats().clients).toBe(2);
  });
});
