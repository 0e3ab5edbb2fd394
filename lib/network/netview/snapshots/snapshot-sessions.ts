/**
 * Loading a snapshot into a cluster (decision 352): the cluster is marked suspended (every answer
 * stale, `/readyz` 503, no change events), its NB and SB clients end their sessions, and the caches
 * are filled with the snapshot's rows, so every route answers as the network was. The live rows are
 * kept aside; unloading puts them back and resumes the clients, whose full resync then brings (and
 * records as `resync` events) exactly what changed in the database meanwhile.
 */
import { ConflictError, UnavailableError } from "../../../foundation/errors/svc-error.ts";
import { initialUpdate } from "../../ovsdb/initial-update.ts";
import type { OvsdbClient } from "../../ovsdb/ovsdb-client.ts";
import { planUpdate2 } from "../../ovsdb/update2.ts";
import type { Cluster } from "../cluster.ts";
import { type FeedDatabase, feedDatabases } from "../history/change-event.ts";
import { cacheRows, type DatabaseSnapshot, type SnapshotDocument } from "./snapshot-document.ts";

interface Session {
  id: string;
  loadedAt: string;
  live: Record<FeedDatabase, DatabaseSnapshot>;
}

const clientOf = (cluster: Cluster, db: FeedDatabase): OvsdbClient => (db === "nb" ? cluster.nb : cluster.sb);

export class SnapshotSessions {
  private readonly sessions = new Map<Cluster, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  loadedOn(cluster: Cluster): { id: string; loaded_at: string } | undefined {
    const session = this.sessions.get(cluster);
    return session === undefined ? undefined : { id: session.id, loaded_at: session.loadedAt };
  }

  isLoaded(id: string): boolean {
    return [...this.sessions.values()].some((s) => s.id === id);
  }

  load(cluster: Cluster, document: SnapshotDocument): void {
    const current = this.sessions.get(cluster);
    if (current !== undefined) {
      throw new ConflictError(`snapshot ${current.id} is loaded on cluster ${cluster.name}: unload it first`);
    }
    // Everything is checked before anything changes: a refused load leaves the cluster live.
    const planned = feedDatabases.map((db) => {
      const cache = clientOf(cluster, db).cache;
      const schema = cache.schema;
      if (schema === undefined) throw new UnavailableError(`cluster ${cluster.name} has not been synced yet`);
      const wanted = document.databases[db].schema;
      if (wanted.name !== schema.name || wanted.version !== schema.version) {
        throw new ConflictError(
          `snapshot ${document.id}: its ${db} schema ${wanted.name} ${wanted.version} is not the server's ${schema.name} ${schema.version}; it can be read and diffed, not loaded`,
        );
      }
      const update = initialUpdate(schema, document.databases[db].tables);
      try {
        planUpdate2(schema, () => undefined, update);
      } catch (error) {
        throw new ConflictError(`snapshot ${document.id}: its ${db} rows do not fit the server's schema`, {
          cause: error,
        });
      }
      return { db, cache, schema, update };
    });
    const live = { nb: cacheRows(cluster.nb.cache), sb: cacheRows(cluster.sb.cache) };
    cluster.suspended = true;
    for (const { db, cache, schema, update } of planned) {
      clientOf(cluster, db).suspend();
      cache.replaceAll(schema, update);
    }
    this.sessions.set(cluster, { id: document.id, loadedAt: new Date(this.now()).toISOString(), live });
  }

  /** Returns the id of the snapshot that was loaded. */
  unload(cluster: Cluster): string {
    const session = this.sessions.get(cluster);
    if (session === undefined) throw new ConflictError(`no snapshot is loaded on cluster ${cluster.name}`);
    for (const db of feedDatabases) {
      const cache = clientOf(cluster, db).cache;
      const schema = cache.schema;
      if (schema !== undefined) cache.replaceAll(schema, initialUpdate(schema, session.live[db].tables));
    }
    this.sessions.delete(cluster);
    cluster.suspended = false;
    for (const db of feedDatabases) clientOf(cluster, db).resume();
    return session.id;
  }
}
