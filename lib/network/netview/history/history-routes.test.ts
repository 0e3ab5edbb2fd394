// The change history over HTTP and WebSocket against the harness's OVN, on a listening server:
// a burst of 10,000 changes made with ovn-nbctl reaches a client whole and in order while a client
// that stopped reading is cut off (and resumes from the store); cut clients see 4008 however long
// they wait before reading again; the origin allowlist, the filters.
import { describe, expect, test } from "bun:test";
import { routeTestForFile } from "../../../../harness/netview/route-test.ts";
import { eventually } from "../../../../harness/netview/test-support.ts";
import type { ChangeEvent } from "./change-event.ts";
import { slowConsumerCode } from "./change-hub.ts";

const maxBufferedBytes = 128 * 1024;
const sets = 100;
const rounds = 100;

const fx = routeTestForFile({
  ops: { hubLimits: { maxClients: 10, maxBufferedBytes, pageSize: 500 } },
  settings: { wsAllowedOrigins: ["https://ops.example"] },
  listen: true,
  cleanup: async (ovn) => {
    const names = Array.from({ length: sets }, (_, k) => [`nvw_as_${k}`, `nvw_cut_${k}`]).flat();
    for (const name of names) await ovn.nbctl(["--if-exists", "destroy", "Address_Set", name]);
    await ovn.nbctl(["--if-exists", "ls-del", "nvw-sw0"]);
  },
});

/** One ovn-nbctl transaction of `command(k)` for every set k. */
const everySet = (command: (k: number) => string[]) =>
  fx().ovn.nbctl(Array.from({ length: sets }, (_, k) => ["--", ...command(k)]).flat());

type Message = { type: string } & Partial<ChangeEvent> & Record<string, unknown>;

/** A stream client that keeps every message; `pause` stops reading from the socket. */
function client(query: string, init: { headers?: Record<string, string> } = {}) {
  const messages: Message[] = [];
  const ws = new WebSocket(`${fx().base.replace("http", "ws")}/api/v1/ws${query}`, init);
  const opened = new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("websocket refused"));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.onclose = (e) => resolve({ code: e.code, reason: e.reason });
  });
  ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)) as Message);
  return { ws, messages, opened, closed, changes: () => messages.filter((m) => m.type === "change") };
}

async function get(path: string) {
  const res = await fetch(`${fx().base}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("GET /api/v1/events", () => {
  test("lists what ovn-nbctl changed, filtered, with the retained bounds", async () => {
    await fx().ovn.nbctl(["ls-add", "nvw-sw0"]);
    await fx().ovn.nbctl(["set", "Logical_Switch", "nvw-sw0", "external_ids:k=v"]);
    await eventually(async () => {
      const { body } = await get("/api/v1/events?database=nb&table=Logical_Switch&limit=2");
      const events = body.events as ChangeEvent[];
      expect(events.map((e) => [e.op, e.new?.name, e.old])).toEqual([
        ["insert", "nvw-sw0", null],
        ["update", "nvw-sw0", { external_ids: {} }],
      ]);
    });
    const { body } = await get("/api/v1/events?op=update&table=Logical_Switch");
    expect((body.events as ChangeEvent[]).every((e) => e.op === "update")).toBe(true);
    expect((body.retained as { count: number }).count).toBeGreaterThanOrEqual(2);
  }, 60_000);

  test("a bad filter is a 400 naming each problem", async () => {
    const { status, body } = await get("/api/v1/events?database=ovs&limit=0&cluster=west");
    expect(status).toBe(400);
    expect(body.error).toContain('database: "ovs" not a database (nb, sb)');
    expect(body.error).toContain("limit: takes an integer from 1 to 1000");
    expect(body.error).toContain('cluster: "west" not a configured cluster (default)');
  });
});

describe("/api/v1/ws", () => {
  test("the Origin allowlist: listed and absent are let in, another site is refused 403", async () => {
    const listed = client("", { headers: { origin: "https://ops.example" } });
    await listed.opened;
    const none = client("");
    await none.opened;
    await eventually(() => expect(none.messages[0]).toMatchObject({ type: "hello" }));
    listed.ws.close();
    none.ws.close();
    const res = await fetch(`${fx().base}/api/v1/ws`, {
      headers: {
        origin: "https://evil.example",
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: "origin not allowed" });
    const bad = await fetch(`${fx().base}/api/v1/ws?since=x`, {
      headers: { connection: "Upgrade", upgrade: "websocket" },
    });
    expect(bad.status).toBe(400);
  });

  test("10,000 changes: every one in order to a reading client; a stalled client is cut off and resumes", async () => {
    // Rows of about a kilobyte, so the burst is several times what the kernel's socket buffers hold.
    const addresses = Array.from({ length: 60 }, (_, i) => `"10.77.${Math.floor(i / 250)}.${i % 250}"`).join(
      ",",
    );
    await everySet((k) => ["create", "Address_Set", `name=nvw_as_${k}`, `addresses=[${addresses}]`]);
    await eventually(() =>
      expect(
        fx()
          .clusters.defaultCluster.nb.cache.rows("Address_Set")
          .filter((r) => String(r.name).startsWith("nvw_as_")).length,
      ).toBe(sets),
    );

    const filter = "?database=nb&table=Address_Set&op=update";
    const reader = client(filter);
    const stalled = client(filter);
    await Promise.all([reader.opened, stalled.opened]);
    await eventually(() => expect(stalled.messages.length).toBe(1));
    stalled.ws.pause();
    const startSeq = fx().ops.history.store.last().seq;

    for (let n = 0; n < rounds; n++)
      await everySet((k) => ["set", "Address_Set", `nvw_as_${k}`, `external_ids:n=${n}`]);
    await eventually(() => expect(reader.changes().length).toBe(sets * rounds), 120_000);

    // In order: seq rises, and each set went through n = 0..99 with nothing skipped or repeated.
    const changes = reader.changes();
    const seqs = changes.map((m) => m.seq as number);
    expect(seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number))).toBe(true);
    expect(seqs[0]).toBeGreaterThan(startSeq);
    const perSet = new Map<string, number[]>();
    for (const m of changes) {
      const name = String(m.new?.name);
      perSet.set(name, [
        ...(perSet.get(name) ?? []),
        Number((m.new?.external_ids as Record<string, string> | undefined)?.n),
      ]);
    }
    expect(perSet.size).toBe(sets);
    for (const values of perSet.values()) expect(values).toEqual(Array.from({ length: rounds }, (_, n) => n));

    // The stalled client was closed, and what the server held for it stayed near the bound.
    stalled.ws.resume();
    expect((await stalled.closed).code).toBe(slowConsumerCode);
    const stats = fx().ops.history.hub.stats();
    expect(stats.closedSlow).toBe(1);
    expect(stats.maxBufferedSeen).toBeLessThan(maxBufferedBytes + 200 * 1024);
    expect(stats.clients).toBe(1);

    // It resumes from the last seq it received and gets exactly the rest, from the store.
    const received = stalled.changes();
    const last = received.length === 0 ? startSeq : (received[received.length - 1]?.seq as number);
    const resumed = client(`${filter}&since=${last}`);
    await eventually(() => expect(received.length + resumed.changes().length).toBe(sets * rounds), 60_000);
    expect([...received, ...resumed.changes()].map((m) => m.seq)).toEqual(seqs);
    reader.ws.close();
    resumed.ws.close();
  }, 240_000);

  test("slow cuts: 4008 whenever the client reads again, each counted once; a client that left is not", async () => {
    // Rows of about 5 KiB: 20 MiB in all, several times what the kernel holds for a paused client.
    const addresses = Array.from({ length: 300 }, (_, i) => `"10.78.${i >> 8}.${i & 255}"`).join(",");
    await everySet((k) => ["create", "Address_Set", `name=nvw_cut_${k}`, `addresses=[${addresses}]`]);
    const filter = "?database=nb&table=Address_Set&op=update";
    const reader = client(filter);
    // Read again at once, after Bun's 15 s close timeout, after 3 s; one is closed by its owner; one
    // leaves before anything happens.
    const [soon, late, later, closed, left] = [1, 2, 3, 4, 5].map(() => client(filter)) as [
      ReturnType<typeof client>,
      ReturnType<typeof client>,
      ReturnType<typeof client>,
      ReturnType<typeof client>,
      ReturnType<typeof client>,
    ];
    const stalled = [soon, late, later, closed, left];
    await Promise.all([reader.opened, ...stalled.map((c) => c.opened)]);
    await eventually(() => expect(stalled.map((c) => c.messages.length)).toEqual([1, 1, 1, 1, 1]));
    for (const c of stalled) c.ws.pause();
    const before = fx().ops.history.hub.stats();
    left.ws.close(1000, "bye");
    expect((await left.closed).code).toBe(1000);
    const rounds = 40;
    for (let n = 0; n < rounds; n++)
      await everySet((k) => ["set", "Address_Set", `nvw_cut_${k}`, `external_ids:n=${n}`]);
    await eventually(() => expect(reader.changes().length).toBe(sets * rounds), 60_000);
    closed.ws.close(1000, "done");
    const readAfter = async (c: ReturnType<typeof client>, ms: number) => {
      await Bun.sleep(ms);
      c.ws.resume();
      return (await c.closed).code;
    };
    const codes = await Promise.all([readAfter(soon, 0), readAfter(late, 16_000), readAfter(later, 3_000)]);
    expect(codes).toEqual([slowConsumerCode, slowConsumerCode, slowConsumerCode]);
    expect((await closed.closed).code).toBe(1000);
    const after = fx().ops.history.hub.stats();
    expect(after.closedSlow - before.closedSlow).toBe(4);
    // What each cut client received is the stream's start, whole, before its close.
    const all = reader.changes().map((m) => m.seq);
    for (const c of [soon, late, later]) {
      const seqs = c.changes().map((m) => m.seq);
      expect(seqs).toEqual(all.slice(0, seqs.length));
    }
    reader.ws.close();
    await eventually(() => expect(fx().ops.history.hub.stats().clients).toBe(before.clients - 6));
  }, 120_000);

  test("since older than the retention: a gap message, then what is left", async () => {
    const bounds = fx().ops.history.store.bounds();
    fx().ops.history.store.prune(Date.now() + 2 * 3_600_000);
    const late = client("?since=0&table=Address_Set");
    await eventually(() => expect(late.messages.length).toBeGreaterThanOrEqual(2));
    expect(late.messages[0]).toMatchObject({
      type: "hello",
      latest_seq: bounds.latest_seq,
      oldest_seq: null,
    });
    expect(late.messages[1]).toEqual({ type: "gap", after: 0, resume: (bounds.latest_seq as number) + 1 });
    late.ws.close();
    const ahead = await fetch(`${fx().base}/api/v1/ws?since=${(bounds.latest_seq as number) + 100}`, {
      headers: { connection: "Upgrade", upgrade: "websocket" },
    });
    expect(ahead.status).toBe(400);
  });
});
