/**
 * The rows of one database as its monitor last reported them. Changes land whole: a notification is
 * planned against the current rows first (pure, may throw) and only then committed synchronously, so
 * a reader (which runs between event-loop turns) sees either all of an update or none of it.
 *
 * `authoritative` is true only between a completed initial sync and the loss of the session: while a
 * client reconnects the rows are kept and served, marked stale by the API.
 */
import type { Row } from "./datum.ts";
import type { DatabaseSchema } from "./schema.ts";
import { decodeInitial, planUpdate2, type RowChange } from "./update2.ts";

/** What is known of how one committed batch of changes came about. */
interface Commit {
  /**
   * The server may have merged several transactions into this batch, and several changes of one
   * row into one (it held updates back while this client's socket was full): a row's `old` is as
   * it was before the first, its `new` after the last (decision 372).
   */
  coalesced: boolean;
}

type ChangeListener = (changes: readonly RowChange[], cache: DatabaseCache, commit: Commit) => void;

const plainCommit: Commit = { coalesced: false };

export class DatabaseCache {
  private tables = new Map<string, Map<string, Row>>();
  private schemaValue: DatabaseSchema | undefined;
  private authoritativeValue = false;
  private versionValue = 0;
  private readonly listeners = new Set<ChangeListener>();

  constructor(readonly database: string) {}

  get schema(): DatabaseSchema | undefined {
    return this.schemaValue;
  }

  get authoritative(): boolean {
    return this.authoritativeValue;
  }

  /** Bumped on every committed change: lets readers memoise per version. */
  get version(): number {
    return this.versionValue;
  }

  setAuthoritative(value: boolean): void {
    this.authoritativeValue = value;
  }

  hasTable(table: string): boolean {
    return this.schemaValue?.tables[table] !== undefined;
  }

  rows(table: string): Row[] {
    const rows = this.tables.get(table);
    return rows === undefined ? [] : [...rows.values()];
  }

  get(table: string, uuid: string): Row | undefined {
    return this.tables.get(table)?.get(uuid);
  }

  count(table: string): number {
    return this.tables.get(table)?.size ?? 0;
  }

  /** Replaces every row with the state of an initial `update2` (a fresh monitor, or a resync). */
  replaceAll(schema: DatabaseSchema, initial: unknown): void {
    this.replaceTables(schema, decodeInitial(schema, initial));
  }

  /**
   * Replaces the rows of the tables given (decoded rows) as one change; every other table of `schema`
   * keeps its rows, or starts empty.
   */
  replaceTables(schema: DatabaseSchema, replaced: ReadonlyMap<string, Map<string, Row>>): void {
    const previous = this.tables;
    const tables = new Map<string, Map<string, Row>>();
    for (const name of Object.keys(schema.tables)) {
      tables.set(name, replaced.get(name) ?? previous.get(name) ?? new Map());
    }
    this.tables = tables;
    this.schemaValue = schema;
    this.versionValue++;
    if (this.listeners.size > 0) this.notify(resyncChanges(previous, tables), plainCommit);
  }

  /** Applies one `update2`; throws (changing nothing) if it does not fit the rows held. */
  apply(update: unknown, commit: Commit = plainCommit): void {
    const schema = this.schemaValue;
    if (schema === undefined) throw new Error(`${this.database}: update before the initial sync`);
    const changes = planUpdate2(schema, (table, uuid) => this.get(table, uuid), update);
    for (const change of changes) {
      const rows = this.tables.get(change.table);
      if (rows === undefined) continue;
      if (change.new === undefined) rows.delete(change.uuid);
      else rows.set(change.uuid, change.new);
    }
    this.versionValue++;
    this.notify(changes, commit);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(changes: readonly RowChange[], commit: Commit): void {
    if (changes.length === 0) return;
    for (const listener of this.listeners) listener(changes, this, commit);
  }
}

/** What a full resync changed, so that listeners see a resync as ordinary row changes. */
function resyncChanges(
  before: Map<string, Map<string, Row>>,
  after: Map<string, Map<string, Row>>,
): RowChange[] {
  const changes: RowChange[] = [];
  for (const [table, rows] of after) {
    const old = before.get(table);
    for (const [uuid, row] of rows) {
      const previous = old?.get(uuid);
      if (previous === undefined || JSON.stringify(previous) !== JSON.stringify(row)) {
        changes.push({ table, uuid, old: previous, new: row });
      }
    }
  }
  for (const [table, rows] of before) {
    const now = after.get(table);
    for (const [uuid, row] of rows)
      if (!now?.has(uuid)) changes.push({ table, uuid, old: row, new: undefined });
  }
  return changes;
}
