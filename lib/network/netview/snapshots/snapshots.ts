/**
 * Snapshots as the API offers them (docs/netview.md "Snapshots"): take, import, read, export, diff,
 * load, unload and delete, over the store and the load sessions. Every refusal is a named 4xx.
 */
import { ConflictError, NotFoundError, ValidationError } from "../../../foundation/errors/svc-error.ts";
import type { Row } from "../../ovsdb/datum.ts";
import type { Cluster, ClusterSet } from "../cluster.ts";
import type { FeedDatabase } from "../history/change-event.ts";
import { nbTables, sbTables } from "../table-names.ts";
import { type DiffSide, diffSides, type SnapshotDiff } from "./snapshot-diff.ts";
import { captureCluster, readSnapshotDocument, type SnapshotDocument } from "./snapshot-document.ts";
import { SnapshotSessions } from "./snapshot-sessions.ts";
import type { SnapshotMeta, SnapshotStore } from "./snapshot-store.ts";

type SnapshotView = SnapshotMeta & { loaded_on: string | null };

const routeTables: Record<FeedDatabase, Record<string, string>> = { nb: nbTables, sb: sbTables };

/** An OVSDB table name, or the API's route name for it (`logical-switches`). */
function tableNameOf(db: FeedDatabase, name: string): string {
  return routeTables[db][name] ?? name;
}

export class Snapshots {
  readonly sessions: SnapshotSessions;

  constructor(
    private readonly store: SnapshotStore,
    private readonly clusters: ClusterSet,
    private readonly now: () => number = Date.now,
  ) {
    this.sessions = new SnapshotSessions(now);
  }

  private view(meta: SnapshotMeta): SnapshotView {
    return { ...meta, loaded_on: this.loadedOnName(meta.id) };
  }

  private save(document: SnapshotDocument, source: SnapshotMeta["source"]) {
    const { meta, evicted } = this.store.add(document, source, (id) => this.sessions.isLoaded(id));
    return { ...this.view(meta), evicted };
  }

  take(options: { cluster?: string; label?: string }) {
    const cluster = this.clusters.resolve(options.cluster);
    const document = captureCluster(cluster, {
      id: crypto.randomUUID(),
      label: options.label ?? "",
      at: new Date(this.now()).toISOString(),
    });
    return this.save(document, "live");
  }

  import(body: unknown) {
    const read = readSnapshotDocument(body);
    return this.save(
      { ...read, id: crypto.randomUUID(), created_at: read.created_at || new Date(this.now()).toISOString() },
      "import",
    );
  }

  list() {
    return this.store.list().map((summary) => ({ ...summary, loaded_on: this.loadedOnName(summary.id) }));
  }

  private loadedOnName(id: string): string | null {
    return this.clusters.all.find((c) => this.sessions.loadedOn(c)?.id === id)?.name ?? null;
  }

  get(id: string): SnapshotView {
    const meta = this.store.get(id);
    if (meta === undefined) throw new NotFoundError("not found");
    return this.view(meta);
  }

  document(id: string): SnapshotDocument {
    const document = this.store.document(id);
    if (document === undefined) throw new NotFoundError("not found");
    return document;
  }

  rows(id: string, database: string | undefined, table: string | undefined): Row[] {
    const document = this.document(id);
    if (database !== "nb" && database !== "sb")
      throw new ValidationError("invalid query: database: takes nb or sb");
    if (table === undefined || table === "") throw new ValidationError("invalid query: table: required");
    const rows = document.databases[database].tables[tableNameOf(database, table)];
    if (rows === undefined) throw new NotFoundError(`table ${table} is not in this snapshot's ${database}`);
    return rows;
  }

  delete(id: string): void {
    this.get(id);
    const on = this.loadedOnName(id);
    if (on !== null) throw new ConflictError(`snapshot ${id} is loaded on cluster ${on}: unload it first`);
    this.store.delete(id);
  }

  /** The cluster a snapshot loads into: the one named, else its own when this server serves it. */
  private targetOf(document: SnapshotDocument, named: string | undefined): Cluster {
    if (named !== undefined) return this.clusters.resolve(named);
    const own = this.clusters.byName.get(document.cluster);
    if (own === undefined) {
      throw new ValidationError(
        `snapshot ${document.id} was taken of cluster ${JSON.stringify(document.cluster)}, which this server does not serve: name one with ?cluster=`,
      );
    }
    return own;
  }

  load(id: string, cluster: string | undefined) {
    const document = this.document(id);
    const target = this.targetOf(document, cluster);
    this.sessions.load(target, document);
    return { snapshot: id, cluster: target.name, ...this.sessions.loadedOn(target) };
  }

  unload(id: string) {
    this.get(id);
    const cluster = this.clusters.all.find((c) => this.sessions.loadedOn(c)?.id === id);
    if (cluster === undefined) throw new ConflictError(`snapshot ${id} is not loaded`);
    this.sessions.unload(cluster);
    return { snapshot: id, cluster: cluster.name, live: true };
  }

  diff(query: {
    from?: string;
    to?: string;
    cluster?: string;
    database?: string;
    table?: string;
  }): SnapshotDiff {
    const from = query.from ?? "";
    const to = query.to ?? "live";
    if (from === "") throw new ValidationError("invalid query: from: a snapshot id or live");
    if (from === "live" && to === "live")
      throw new ValidationError("invalid query: from and to are both live");
    const snapshotSide = (id: string): DiffSide => ({ kind: "snapshot", document: this.document(id) });
    const other = from === "live" ? to : from;
    const liveCluster = () => {
      const document = this.document(other);
      return this.targetOf(document, query.cluster);
    };
    const side = (name: string): DiffSide =>
      name === "live" ? { kind: "live", cluster: liveCluster() } : snapshotSide(name);
    const databases = query.database === undefined ? undefined : [query.database];
    if (databases !== undefined && !databases.every((d) => d === "nb" || d === "sb")) {
      throw new ValidationError("invalid query: database: takes nb or sb");
    }
    const dbs = databases as FeedDatabase[] | undefined;
    const tables =
      query.table === undefined
        ? undefined
        : query.table
            .split(",")
            .filter((t) => t !== "")
            .flatMap((t) => (dbs ?? (["nb", "sb"] as const)).map((db) => tableNameOf(db, t)));
    return diffSides(side(from), side(to), {
      ...(dbs === undefined ? {} : { databases: dbs }),
      ...(tables === undefined ? {} : { tables }),
    });
  }
}
