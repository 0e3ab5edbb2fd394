/**
 * Recorded change events (`GET /api/v1/events`, the WebSocket's replay), bounded by count and age
 * (decision 350). Events are kept as the JSON text the stream sends, so a replay writes no JSON.
 */
import type { Database } from "bun:sqlite";
import { WhereClause } from "../state/where-clause.ts";
import { type ChangeEvent, eventJson } from "./change-event.ts";
import type { EventFilter } from "./event-filter.ts";
import type { LastState } from "./last-state.ts";

export interface EventRetention {
  /** Events older than this are pruned. */
  maxAgeMs: number;
  /** At most this many events are kept (the oldest go first). */
  maxEvents: number;
}

export interface StoredEvent {
  seq: number;
  json: string;
}

interface EventBounds {
  oldest_seq: number | null;
  latest_seq: number | null;
  count: number;
}

export class EventStore {
  private readonly insert;
  private readonly advance;
  private appendedSincePrune = 0;

  constructor(
    private readonly db: Database,
    private readonly retention: EventRetention,
    /** Kept in the same transaction as the events (with a state directory, decision 373). */
    private readonly lastState?: LastState,
  ) {
    db.run(`create table if not exists events (
      seq integer primary key,
      at text not null,
      cluster text not null,
      database text not null,
      tbl text not null,
      uuid text not null,
      op text not null,
      txn integer not null,
      json text not null)`);
    // The numbers go on after every event has been pruned, so they live apart from the events.
    db.run(`create table if not exists event_counters (
      id integer primary key check (id = 1),
      seq integer not null,
      txn integer not null)`);
    db.run("insert or ignore into event_counters (id, seq, txn) values (1, 0, 0)");
    db.run("create index if not exists events_at on events (at)");
    db.run("create index if not exists events_uuid on events (uuid)");
    db.run("create index if not exists events_table on events (cluster, database, tbl)");
    this.insert = db.prepare(
      "insert into events (seq, at, cluster, database, tbl, uuid, op, txn, json) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    this.advance = db.prepare("update event_counters set seq = max(seq, ?), txn = max(txn, ?) where id = 1");
  }

  /** Appends one batch in one transaction; prunes by count once a tenth of the bound has come in. */
  append(events: readonly ChangeEvent[]): void {
    this.db.transaction(() => {
      for (const e of events) {
        this.insert.run(e.seq, e.at, e.cluster, e.database, e.table, e.uuid, e.op, e.txn, eventJson(e));
      }
      const last = events[events.length - 1];
      if (last !== undefined) this.advance.run(last.seq, last.txn);
      this.lastState?.apply(events);
    })();
    this.appendedSincePrune += events.length;
    if (this.appendedSincePrune >= Math.max(1, Math.floor(this.retention.maxEvents / 10))) {
      this.pruneCount();
    }
  }

  /** The highest seq and txn recorded, so a restarted feed numbers on. */
  last(): { seq: number; txn: number } {
    return this.db.query("select seq, txn from event_counters where id = 1").get() as {
      seq: number;
      txn: number;
    };
  }

  bounds(): EventBounds {
    const row = this.db
      .query("select min(seq) as oldest, max(seq) as latest, count(*) as n from events")
      .get() as { oldest: number | null; latest: number | null; n: number };
    return { oldest_seq: row.oldest, latest_seq: row.latest, count: row.n };
  }

  /**
   * Events matching the filter in seq order: after `since` (ascending, for a resume or replay), or
   * the latest `limit` before `before` (still returned in ascending order).
   */
  query(filter: EventFilter): StoredEvent[] {
    const where = new WhereClause()
      .anyOf("cluster", filter.clusters)
      .anyOf("database", filter.databases)
      .anyOf("tbl", filter.tables)
      .anyOf("op", filter.ops)
      .anyOf("uuid", filter.uuids)
      .when("seq > ?", filter.since)
      .when("seq < ?", filter.before)
      .when("at >= ?", filter.from)
      .when("at < ?", filter.to);
    const ascending = filter.since !== undefined;
    const rows = this.db
      .query(`select seq, json from events ${where} order by seq ${ascending ? "asc" : "desc"} limit ?`)
      .all(...where.args, filter.limit) as StoredEvent[];
    return ascending ? rows : rows.reverse();
  }

  /** Drops events beyond the retention; returns how many went. */
  prune(nowMs: number): number {
    const cutoff = new Date(nowMs - this.retention.maxAgeMs).toISOString();
    const aged = this.db.run("delete from events where at < ?", [cutoff]).changes;
    return aged + this.pruneCount();
  }

  private pruneCount(): number {
    this.appendedSincePrune = 0;
    const latest = this.last().seq;
    return this.db.run("delete from events where seq <= ?", [latest - this.retention.maxEvents]).changes;
  }
}
