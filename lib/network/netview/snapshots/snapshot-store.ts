/**
 * Snapshots on the state database (decision 352): one row each, the rows of both databases as one
 * gzip'd JSON document beside a small description. Bounded: beyond `maxSnapshots` the oldest go,
 * except those `keep` protects (a loaded one).
 */
import type { Database } from "bun:sqlite";
import type { FeedDatabase } from "../history/change-event.ts";
import {
  type DatabaseSnapshot,
  rowCounts,
  type SchemaName,
  type SnapshotDocument,
} from "./snapshot-document.ts";

interface SnapshotDatabaseMeta {
  schema: SchemaName;
  rows: number;
  tables: Record<string, number>;
}

export interface SnapshotMeta {
  id: string;
  label: string;
  cluster: string;
  created_at: string;
  source: "live" | "import";
  stale: boolean;
  /** Stored (compressed) size. */
  bytes: number;
  databases: Record<FeedDatabase, SnapshotDatabaseMeta>;
}

/** The list entry: the description without per-table counts. */
type SnapshotSummary = Omit<SnapshotMeta, "databases"> & {
  databases: Record<FeedDatabase, Omit<SnapshotDatabaseMeta, "tables">>;
};

const describe = (snapshot: DatabaseSnapshot): SnapshotDatabaseMeta => {
  const tables = rowCounts(snapshot);
  return { schema: snapshot.schema, rows: Object.values(tables).reduce((a, b) => a + b, 0), tables };
};

export class SnapshotStore {
  /** The last documents read, since a diff or a page of rows often follows another. */
  private readonly recent = new Map<string, SnapshotDocument>();

  constructor(
    private readonly db: Database,
    private readonly maxSnapshots: number,
  ) {
    db.run(`create table if not exists snapshots (
      ord integer primary key autoincrement,
      id text not null unique,
      meta text not null,
      data blob not null)`);
  }

  add(
    document: SnapshotDocument,
    source: SnapshotMeta["source"],
    keep: (id: string) => boolean = () => false,
  ) {
    const data = Bun.gzipSync(JSON.stringify(document.databases));
    const meta: SnapshotMeta = {
      id: document.id,
      label: document.label,
      cluster: document.cluster,
      created_at: document.created_at,
      source,
      stale: document.stale,
      bytes: data.byteLength,
      databases: { nb: describe(document.databases.nb), sb: describe(document.databases.sb) },
    };
    const evicted: string[] = [];
    this.db.transaction(() => {
      this.db.run("insert into snapshots (id, meta, data) values (?, ?, ?)", [
        meta.id,
        JSON.stringify(meta),
        data,
      ]);
      const ids = (this.db.query("select id from snapshots order by ord").all() as { id: string }[]).map(
        (r) => r.id,
      );
      let excess = ids.length - this.maxSnapshots;
      for (const id of ids) {
        if (excess <= 0) break;
        if (keep(id)) continue;
        this.db.run("delete from snapshots where id = ?", [id]);
        this.recent.delete(id);
        evicted.push(id);
        excess--;
      }
    })();
    return { meta, evicted };
  }

  list(): SnapshotSummary[] {
    const rows = this.db.query("select meta from snapshots order by ord desc").all() as { meta: string }[];
    return rows.map(({ meta }) => {
      const m = JSON.parse(meta) as SnapshotMeta;
      const brief = (d: SnapshotDatabaseMeta) => ({ schema: d.schema, rows: d.rows });
      return { ...m, databases: { nb: brief(m.databases.nb), sb: brief(m.databases.sb) } };
    });
  }

  get(id: string): SnapshotMeta | undefined {
    const row = this.db.query("select meta from snapshots where id = ?").get(id) as { meta: string } | null;
    return row === null ? undefined : (JSON.parse(row.meta) as SnapshotMeta);
  }

  document(id: string): SnapshotDocument | undefined {
    const hit = this.recent.get(id);
    if (hit !== undefined) return hit;
    const row = this.db.query("select meta, data from snapshots where id = ?").get(id) as {
      meta: string;
      data: Uint8Array<ArrayBuffer>;
    } | null;
    if (row === null) return undefined;
    const meta = JSON.parse(row.meta) as SnapshotMeta;
    const document: SnapshotDocument = {
      format: "netview-snapshot",
      version: 1,
      id: meta.id,
      label: meta.label,
      cluster: meta.cluster,
      created_at: meta.created_at,
      stale: meta.stale,
      databases: JSON.parse(
        new TextDecoder().decode(Bun.gunzipSync(row.data)),
      ) as SnapshotDocument["databases"],
    };
    this.recent.set(id, document);
    while (this.recent.size > 2) this.recent.delete(this.recent.keys().next().value as string);
    return document;
  }

  delete(id: string): boolean {
    this.recent.delete(id);
    return this.db.run("delete from snapshots where id = ?", [id]).changes > 0;
  }
}
