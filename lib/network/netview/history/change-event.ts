/**
 * A recorded database change, the one shape of `GET /api/v1/events` and of the WebSocket stream
 * (docs/netview.md "Change events"). One event per changed row; the events of one committed monitor
 * notification share a `txn`. `seq` orders every event of the server, across clusters and databases.
 */
import type { Row } from "../../ovsdb/datum.ts";
import { rowDelta } from "../../ovsdb/row-diff.ts";
import type { RowChange } from "../../ovsdb/update2.ts";

export type FeedDatabase = "nb" | "sb";
export const feedDatabases: readonly FeedDatabase[] = ["nb", "sb"];

export interface ChangeEvent {
  seq: number;
  /** When netview saw the change (OVSDB carries no commit time). */
  at: string;
  cluster: string;
  database: FeedDatabase;
  table: string;
  uuid: string;
  op: "insert" | "update" | "delete";
  txn: number;
  /** Found by a full resync after a lost session: it happened while netview was not connected. */
  resync: boolean;
  /**
   * ovsdb-server may have merged several committed changes of this row into this one (it held
   * updates back while netview was behind): `old` is before the first, `new` after the last, the
   * values between were never sent (decision 372). False: exactly one committed change.
   */
  coalesced: boolean;
  /** Delete: the whole row; update: only the changed columns, as they were; insert: null. */
  old: Partial<Row> | null;
  /** Insert and update: the whole row after; delete: null. */
  new: Row | null;
}

interface BatchContext {
  firstSeq: number;
  txn: number;
  at: string;
  cluster: string;
  database: FeedDatabase;
  resync: boolean;
  coalesced: boolean;
}

/** The events of one committed batch of row changes, numbered from `firstSeq`; no-op changes dropped. */
export function changeEvents(changes: readonly RowChange[], context: BatchContext): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  for (const change of changes) {
    const delta = rowDelta(change.old, change.new);
    if (delta === undefined) continue;
    events.push({
      seq: context.firstSeq + events.length,
      at: context.at,
      cluster: context.cluster,
      database: context.database,
      table: change.table,
      uuid: change.uuid,
      op: delta.op,
      txn: context.txn,
      resync: context.resync,
      coalesced: context.coalesced,
      old: delta.op === "insert" ? null : delta.old,
      new: delta.op === "delete" ? null : delta.new,
    });
  }
  return events;
}

const texts = new WeakMap<ChangeEvent, { event: string; row: string }>();

function textsOf(event: ChangeEvent): { event: string; row: string } {
  let text = texts.get(event);
  if (text === undefined) {
    // `new` is the last member: the row's text is written once and the event's ends with it.
    const row = JSON.stringify(event.new);
    const head = JSON.stringify({ ...event, new: null });
    text = { event: `${head.slice(0, -"null}".length)}${row}}`, row };
    texts.set(event, text);
  }
  return text;
}

/** The JSON text of an event, written once however many sinks and clients need it. */
export function eventJson(event: ChangeEvent): string {
  return textsOf(event).event;
}

/** The JSON text of an event's row after it (`null` for a delete), from the same writing. */
export function rowJson(event: ChangeEvent): string {
  return textsOf(event).row;
}
