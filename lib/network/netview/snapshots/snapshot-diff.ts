/**
 * `GET /api/v1/snapshots/diff`: what changed from one side to the other, where a side is a snapshot
 * or a cluster's live caches. Built on the one row diff (lib/network/ovsdb/row-diff.ts).
 */
import { ConflictError, UnavailableError } from "../../../foundation/errors/svc-error.ts";
import { diffDatabase, type TableDiff } from "../../ovsdb/row-diff.ts";
import type { Cluster } from "../cluster.ts";
import { type FeedDatabase, feedDatabases } from "../history/change-event.ts";
import { cacheRows, type DatabaseSnapshot, type SnapshotDocument } from "./snapshot-document.ts";

export type DiffSide = { kind: "snapshot"; document: SnapshotDocument } | { kind: "live"; cluster: Cluster };

export interface SnapshotDiff {
  from: { snapshot: string } | { live: string };
  to: { snapshot: string } | { live: string };
  summary: { inserted: number; deleted: number; updated: number };
  databases: Record<FeedDatabase, Record<string, TableDiff>>;
}

function rowsOf(side: DiffSide, db: FeedDatabase): DatabaseSnapshot {
  if (side.kind === "snapshot") return side.document.databases[db];
  const { cluster } = side;
  if (cluster.suspended) {
    throw new ConflictError(
      `cluster ${cluster.name} answers from a loaded snapshot: its live rows are not known`,
    );
  }
  const cache = db === "nb" ? cluster.nb.cache : cluster.sb.cache;
  if (cache.schema === undefined)
    throw new UnavailableError(`cluster ${cluster.name} has not been synced yet`);
  return cacheRows(cache);
}

const name = (side: DiffSide) =>
  side.kind === "snapshot" ? { snapshot: side.document.id } : { live: side.cluster.name };

export function diffSides(
  from: DiffSide,
  to: DiffSide,
  scope: { databases?: readonly FeedDatabase[]; tables?: readonly string[] } = {},
): SnapshotDiff {
  const summary = { inserted: 0, deleted: 0, updated: 0 };
  const databases = { nb: {}, sb: {} } as Record<FeedDatabase, Record<string, TableDiff>>;
  for (const db of scope.databases ?? feedDatabases) {
    const pick = (rows: DatabaseSnapshot) =>
      scope.tables === undefined
        ? rows.tables
        : Object.fromEntries(Object.entries(rows.tables).filter(([table]) => scope.tables?.includes(table)));
    const diff = diffDatabase(pick(rowsOf(from, db)), pick(rowsOf(to, db)));
    databases[db] = diff;
    for (const table of Object.values(diff)) {
      summary.inserted += table.inserted.length;
      summary.deleted += table.deleted.length;
      summary.updated += table.updated.length;
    }
  }
  return { from: name(from), to: name(to), summary, databases };
}
