/**
 * The rows of every cluster's NB and SB as the change events last left them, kept beside the events
 * in the state database (issue 31 item 5, decision 373), so that after a restart with a state
 * directory the first read can be compared with them and what changed while netview was down
 * becomes events (`resync: true`) instead of a gap. Written in the transaction of the events that
 * change it; a database seen for the first time is written whole once its first sync is done.
 */
import type { Database } from "bun:sqlite";
import type { DatabaseCache } from "../../ovsdb/database-cache.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { RowChange } from "../../ovsdb/update2.ts";
import { type ChangeEvent, type FeedDatabase, rowJson } from "./change-event.ts";

export class LastState {
  private readonly upsert;
  private readonly remove;

  constructor(private readonly db: Database) {
    db.run(`create table if not exists last_rows (
      cluster text not null,
      database text not null,
      tbl text not null,
      uuid text not null,
      json text not null,
      primary key (cluster, database, tbl, uuid)) without rowid`);
    // A database whose rows are all here (written whole after its first sync).
    db.run(`create table if not exists last_databases (
      cluster text not null,
      database text not null,
      primary key (cluster, database))`);
    this.upsert = db.prepare(
      "insert into last_rows (cluster, database, tbl, uuid, json) values (?, ?, ?, ?, ?) on conflict do update set json = excluded.json",
    );
    this.remove = db.prepare(
      "delete from last_rows where cluster = ? and database = ? and tbl = ? and uuid = ?",
    );
  }

  /** Follows a batch of events; called inside the transaction that appends them. */
  apply(events: readonly ChangeEvent[]): void {
    for (const e of events) {
      if (e.op === "delete") this.remove.run(e.cluster, e.database, e.table, e.uuid);
      else this.upsert.run(e.cluster, e.database, e.table, e.uuid, rowJson(e));
    }
  }

  /** Whether a database's rows were written whole before (by an earlier run). */
  known(cluster: string, database: FeedDatabase): boolean {
    return (
      this.db
        .query("select 1 from last_databases where cluster = ? and database = ?")
        .get(cluster, database) !== null
    );
  }

  /** Writes a database's rows whole, replacing what was kept of it. */
  replace(cluster: string, database: FeedDatabase, cache: DatabaseCache): void {
    const tables = Object.keys(cache.schema?.tables ?? {});
    this.db.transaction(() => {
      this.db.run("delete from last_rows where cluster = ? and database = ?", [cluster, database]);
      for (const table of tables)
        for (const row of cache.rows(table))
          this.upsert.run(cluster, database, table, row._uuid as string, JSON.stringify(row));
      this.db.run("insert or ignore into last_databases (cluster, database) values (?, ?)", [
        cluster,
        database,
      ]);
    })();
  }

  /**
   * What differs between the rows kept and the cache's, as row changes (kept row old, cache row
   * new): what changed while netview was not watching.
   */
  changesTo(cluster: string, database: FeedDatabase, cache: DatabaseCache): RowChange[] {
    const kept = new Map<string, Map<string, string>>();
    const rows = this.db
      .query("select tbl, uuid, json from last_rows where cluster = ? and database = ?")
      .all(cluster, database) as { tbl: string; uuid: string; json: string }[];
    for (const r of rows) {
      const table = kept.get(r.tbl) ?? new Map<string, string>();
      kept.set(r.tbl, table);
      table.set(r.uuid, r.json);
    }
    const changes: RowChange[] = [];
    for (const table of Object.keys(cache.schema?.tables ?? {})) {
      const before = kept.get(table);
      kept.delete(table);
      for (const row of cache.rows(table)) {
        const uuid = row._uuid as string;
        const json = before?.get(uuid);
        before?.delete(uuid);
        if (json === JSON.stringify(row)) continue;
        changes.push({
          table,
          uuid,
          old: json === undefined ? undefined : (JSON.parse(json) as Row),
          new: row,
        });
      }
      for (const [uuid, json] of before ?? [])
        changes.push({ table, uuid, old: JSON.parse(json) as Row, new: undefined });
    }
    // Tables the schema no longer has: their rows are gone.
    for (const [table, gone] of kept)
      for (const [uuid, json] of gone)
        changes.push({ table, uuid, old: JSON.parse(json) as Row, new: undefined });
    return changes;
  }

  /** Forgets the clusters no longer configured. */
  retain(clusters: readonly string[]): void {
    const list = clusters.map(() => "?").join(", ");
    this.db.run(`delete from last_rows where cluster not in (${list})`, [...clusters]);
    this.db.run(`delete from last_databases where cluster not in (${list})`, [...clusters]);
  }
}
