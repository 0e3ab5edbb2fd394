import type { Sql } from "postgres";
import type { FieldError } from "../../../foundation/errors/svc-error.ts";
import { pgInstant } from "../database.ts";
import { decodeCursor, pageOf } from "./page-cursor.ts";

/** A dead-lettered ingest item: why it was refused and the body as it was submitted. */
export interface RejectedEvent {
  id: number;
  received_at: string;
  reason: string;
  errors: FieldError[];
  raw_body: string;
  event_id: string | null;
  item_index: number;
  request_id: string | null;
}

interface RejectedFilter {
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A page of the dead letter in (received_at, id) order; `from`/`to` bound `received_at`. */
export async function listRejectedEvents(sql: Sql, filter: RejectedFilter) {
  const after = filter.cursor === undefined ? null : decodeCursor(filter.cursor, "tn");
  const rows = await sql<(Omit<RejectedEvent, "id"> & { id: string })[]>`
    select id::text, received_at::text, reason, errors, raw_body, event_id, item_index, request_id
    from rejected_events
    where true
      ${filter.from === undefined ? sql`` : sql`and received_at >= ${filter.from}::timestamptz`}
      ${filter.to === undefined ? sql`` : sql`and received_at < ${filter.to}::timestamptz`}
      ${after === null ? sql`` : sql`and (received_at, id) > (${after[0] ?? ""}::timestamptz, ${after[1] ?? 0})`}
    order by rejected_events.received_at, rejected_events.id
    limit ${filter.limit + 1}`;
  return pageOf(
    rows,
    filter.limit,
    (r): RejectedEvent => ({ ...r, id: Number(r.id), received_at: pgInstant(r.received_at) }),
    (r) => [pgInstant(r.received_at), Number(r.id)],
  );
}
