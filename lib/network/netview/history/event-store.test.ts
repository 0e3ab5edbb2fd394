import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEvent as event, testEventsStart as t0 } from "../../../../harness/netview/test-events.ts";
import { openStateDb } from "../state/state-db.ts";
import { parseEventFilter } from "./event-filter.ts";
import { EventStore } from "./event-store.ts";

const hour = 3_600_000;
const filter = (query: Record<string, string>) => parseEventFilter(query, { clusters: ["default", "east"] });
const seqs = (store: EventStore, query: Record<string, string>) =>
  store.query(filter(query)).map((e) => e.seq);

describe("EventStore", () => {
  test("queries by member, seq and time, oldest first; the stored text is the event", () => {
    const store = new EventStore(openStateDb(undefined), { maxAgeMs: 24 * hour, maxEvents: 1000 });
    store.append([event(1), event(2, { database: "sb", table: "Chassis" }), event(3, { op: "update" })]);
    store.append([event(4, { cluster: "east" })]);
    expect(seqs(store, {})).toEqual([1, 2, 3, 4]);
    expect(seqs(store, { limit: "2" })).toEqual([3, 4]);
    expect(seqs(store, { since: "1", limit: "2" })).toEqual([2, 3]);
    expect(seqs(store, { before: "3" })).toEqual([1, 2]);
    expect(seqs(store, { database: "sb" })).toEqual([2]);
    expect(seqs(store, { cluster: "east" })).toEqual([4]);
    expect(seqs(store, { op: "update" })).toEqual([3]);
    expect(seqs(store, { uuid: event(2).uuid })).toEqual([2]);
    expect(seqs(store, { from: event(2).at, to: event(4).at })).toEqual([2, 3]);
    expect(JSON.parse(store.query(filter({ since: "3" }))[0]?.json ?? "")).toEqual(
      event(4, { cluster: "east" }),
    );
    expect(store.bounds()).toEqual({ oldest_seq: 1, latest_seq: 4, count: 4 });
  });

  test("keeps at most maxEvents and nothing older than maxAge; numbers go on after everything went", () => {
    const store = new EventStore(openStateDb(undefined), { maxAgeMs: hour, maxEvents: 10 });
    for (let seq = 1; seq <= 25; seq++) store.append([event(seq)]);
    store.prune(t0);
    expect(store.bounds()).toEqual({ oldest_seq: 16, latest_seq: 25, count: 10 });
    expect(store.prune(t0 + 2 * hour)).toBe(10);
    expect(store.bounds()).toEqual({ oldest_seq: null, latest_seq: null, count: 0 });
    expect(store.last()).toEqual({ seq: 25, txn: 25 });
  });

  test("survives reopening its file", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-netview-events-"));
    try {
      const first = openStateDb(dir);
      new EventStore(first, { maxAgeMs: hour, maxEvents: 10 }).append([event(1), event(2)]);
      first.close();
      const again = new EventStore(openStateDb(dir), { maxAgeMs: hour, maxEvents: 10 });
      expect(again.last()).toEqual({ seq: 2, txn: 2 });
      expect(seqs(again, {})).toEqual([1, 2]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
