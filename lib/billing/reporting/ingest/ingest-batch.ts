import postgres, { type Sql, type TransactionSql } from "postgres";
import { compare } from "../../../foundation/collections/compare.ts";
import { checkJsonSchema } from "../../../foundation/json/json-schema-check.ts";
import { storableText } from "../../../foundation/json/storable-text.ts";
import type { CanonicalEvent, EventSource } from "../../events/event.ts";
import { validateEvent } from "../../events/validate.ts";
import type { IngestPrincipal } from "../auth/credential-lookup.ts";
import type { IngestResult, RejectedItem } from "../contract/event-schemas.ts";
import { pgInstant } from "../database.ts";
import type { EventPartitions } from "../event-partitions.ts";
import { type ProjectionStats, projectStored, resourceEventsOf } from "../projection/project-resources.ts";
import { copyEventsCsv, eventsCsv } from "./events-copy.ts";
import { indexLimitErrors } from "./index-limits.ts";
import { replaceSizeNames } from "./size-names.ts";
import { readSizeRules } from "./size-rules.ts";

/** The most items one call takes; a longer array is refused whole (413) before anything is read. */
export const maxBatchItems = 1000;

export interface IngestContext {
  /** The ingest credential; null when authentication is disabled (no scope applies). */
  principal: IngestPrincipal | null;
  /** The pipeline storing the events: what `source` is stored, whatever an item claims. */
  pipeline: EventSource;
  /** SVC_INGEST_REQUIRE_SIZE_SCHEMA: refuse a size for a pair with no registered schema. */
  requireSizeSchema: boolean;
  /** The body was one event, not an array: locations are `body.x` rather than `body.<i>.x`. */
  single: boolean;
  requestId?: string;
}

export type RefusalKind = "invalid" | "scope" | "size_schema" | "unregistered_size";

export interface IngestOutcome {
  result: IngestResult;
  /** Sizes stored without a schema to check them, per pair (svc_ingest_unvalidated_size_total). */
  unvalidatedSizes: { platform: string; resource_type: string; count: number }[];
  refusals: Record<RefusalKind, number>;
  projection: ProjectionStats;
}

interface Candidate {
  index: number;
  event: CanonicalEvent;
  raw: unknown;
}

interface Refusal extends RejectedItem {
  kind: RefusalKind;
  raw: unknown;
  /** For a scope violation: the (platform, cloud) the item claimed, for the audit row. */
  claimed?: { platform: string; cloud: string };
}

interface Screened {
  candidates: Candidate[];
  refusals: Refusal[];
}

const reasons: Record<RefusalKind, string> = {
  invalid: "the event breaks the member rules",
  scope: "outside the (platform, cloud) of the credential",
  size_schema: "the size does not match the schema registered for its (platform, resource_type)",
  unregistered_size: "no size schema is registered for its (platform, resource_type) and one is required",
};

/**
 * The event id a refused item claims, as the answer and the dead letter name it: in storable form, since
 * the refusal may be for the very NUL or lone surrogate the database cannot hold (decision 118).
 */
function eventIdOf(raw: unknown): string | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const id = (raw as Record<string, unknown>).event_id;
  return typeof id === "string" ? storableText(id) : null;
}

function locOf(ctx: IngestContext, index: number): string {
  return ctx.single ? "body" : `body.${index}`;
}

/**
 * The checks that need no database, item by item: the credential's scope first (an item for another
 * (platform, cloud) is a scope violation, audited and never dead-lettered, since its body belongs to a
 * cloud the caller does not report for), then every member rule. Pure.
 */
export function screenItems(items: readonly unknown[], ctx: IngestContext): Screened {
  const candidates: Candidate[] = [];
  const refusals: Refusal[] = [];
  items.forEach((raw, index) => {
    const event_id = eventIdOf(raw);
    const principal = ctx.principal;
    if (principal && typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
      const { platform, cloud } = raw as Record<string, unknown>;
      if (
        typeof platform === "string" &&
        typeof cloud === "string" &&
        (platform !== principal.platform || cloud !== principal.cloud)
      ) {
        const claimed = { platform: storableText(platform), cloud: storableText(cloud) };
        refusals.push({ kind: "scope", index, event_id, reason: reasons.scope, errors: [], raw, claimed });
        return;
      }
    }
    const checked = validateEvent(raw, locOf(ctx, index));
    const errors = checked.ok ? indexLimitErrors(checked.event, locOf(ctx, index)) : checked.errors;
    if (!checked.ok || errors.length > 0) {
      refusals.push({ kind: "invalid", index, event_id, reason: reasons.invalid, errors, raw });
      return;
    }
    // The event is validateEvent's own copy: it takes the pipeline's source in place.
    checked.event.source = ctx.pipeline;
    candidates.push({ index, event: checked.event, raw });
  });
  return { candidates, refusals };
}

/**
 * Stores one screened batch inside `tx`: size-name replacement and the size schema (rule order: scope,
 * names, schema), the events with deduplication on (event_id, timestamp), the dead letters, the scope
 * audit rows, and the projection of the events actually stored. The caller commits or rolls back the
 * whole, so a batch lands whole or not at all; a batch of refusals alone still commits its dead letters.
 *
 * The events go in before the batch takes its resources' locks, so only the projection's read, fold and
 * write wait for another batch on the same resources, not the events' write (decision 148): the locks
 * guard the projection rows, and the primary key guards the events.
 */
export async function ingestBatch(
  tx: TransactionSql,
  screened: Screened,
  ctx: IngestContext,
  path: InsertPath = "copy",
): Promise<IngestOutcome> {
  const refusals = [...screened.refusals];
  const unvalidated = new Map<string, { platform: string; resource_type: string; count: number }>();
  const candidates = screened.candidates.map((c) => c.event);
  const rules = await readSizeRules(tx, candidates);

  const accepted: Candidate[] = [];
  for (const candidate of screened.candidates) {
    const { event } = candidate;
    if (!event.payload.size) {
      accepted.push(candidate);
      continue;
    }
    const payload = replaceSizeNames(event.payload, rules.namesFor(event));
    const schema = rules.schemaFor(event);
    const key = JSON.stringify([event.platform, event.resource_type]);
    if (schema === undefined) {
      if (ctx.requireSizeSchema) {
        refusals.push({
          kind: "unregistered_size",
          index: candidate.index,
          event_id: event.event_id,
          reason: reasons.unregistered_size,
          errors: [{ loc: `${locOf(ctx, candidate.index)}.payload.size`, msg: "has no registered schema" }],
          raw: candidate.raw,
        });
        continue;
      }
      const counted = unvalidated.get(key) ?? {
        platform: event.platform,
        resource_type: event.resource_type,
        count: 0,
      };
      counted.count++;
      unvalidated.set(key, counted);
    } else {
      const errors = checkJsonSchema(
        schema,
        payload.size ?? {},
        `${locOf(ctx, candidate.index)}.payload.size`,
      );
      if (errors.length > 0) {
        refusals.push({
          kind: "size_schema",
          index: candidate.index,
          event_id: event.event_id,
          reason: reasons.size_schema,
          errors,
          raw: candidate.raw,
        });
        continue;
      }
    }
    accepted.push({ ...candidate, event: { ...event, payload } });
  }

  const events = accepted.map((c) => c.event);
  // Sent together, one round trip: the dead letters, then the events (a statement sent behind a COPY
  // would reach the server while it reads the COPY's data).
  const [, stored] = await Promise.all([
    writeRefusals(tx, refusals, ctx),
    path === "copy" ? copyNewEvents(tx, events) : insertEvents(tx, events),
  ]);
  // Only the resources of events actually stored are locked: a duplicate changes no row.
  const projection = await projectStored(tx, resourceEventsOf(stored));

  const counts: Record<RefusalKind, number> = { invalid: 0, scope: 0, size_schema: 0, unregistered_size: 0 };
  for (const r of refusals) counts[r.kind]++;
  return {
    result: {
      accepted: stored.length,
      duplicates: accepted.length - stored.length,
      rejected: refusals
        .sort((a, b) => a.index - b.index)
        .map(({ index, event_id, reason, errors }) => ({ index, event_id, reason, errors })),
    },
    unvalidatedSizes: [...unvalidated.values()],
    refusals: counts,
    projection,
  };
}

/**
 * How a batch's events reach the table (decisions 122, 148). `copy`: the batch's events (each key once:
 * its first item) go in with one COPY, PostgreSQL's cheapest write, without asking first which are
 * stored. A key stored already, or by another batch at the same moment, makes the COPY fail on the
 * primary key; the caller then runs the whole batch again on the `conflict` path, an `INSERT … ON
 * CONFLICT DO NOTHING` that waits for such a key and skips it. Collectors send new events, so a batch
 * takes the `copy` path; a resent one fails its COPY at its first row, in key order, and costs about
 * what a probe of its keys did.
 */
export type InsertPath = "copy" | "conflict";

// U+0000 cannot occur in a stored event id (validation refuses it), so it separates the two parts.
const keyText = (event_id: string, timestamp: string) => `${event_id}\u0000${timestamp}`;

/**
 * The one order in which both paths write a batch's events: by timestamp (canonical instants sort as
 * text), then event id. COPY into a partitioned table buffers rows per partition and writes them
 * partition by partition, while the INSERT writes row by row; sorted by time first, the partitions
 * come in order too and both write every key in this order, so two batches sharing events wait on
 * each other's keys in one order and never deadlock (issue 28, decision 124).
 */
function inWriteOrder(a: CanonicalEvent, b: CanonicalEvent): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? -1 : 1;
  return compare(a.event_id, b.event_id);
}

/** The `copy` path: stores the first item of each key, and returns those, in batch order. */
async function copyNewEvents(
  tx: TransactionSql,
  events: readonly CanonicalEvent[],
): Promise<CanonicalEvent[]> {
  const seen = new Set<string>();
  const fresh: CanonicalEvent[] = [];
  for (const e of events) {
    const key = keyText(e.event_id, e.timestamp);
    if (seen.has(key)) continue;
    seen.add(key);
    fresh.push(e);
  }
  if (fresh.length > 0) await copyEventsCsv(tx, eventsCsv([...fresh].sort(inWriteOrder)));
  return fresh;
}

/**
 * The `conflict` path: inserts the events, skipping any key already stored or repeated earlier in the
 * batch, and returns the ones actually stored: only those are folded into the projection.
 */
async function insertEvents(
  tx: TransactionSql,
  events: readonly CanonicalEvent[],
): Promise<CanonicalEvent[]> {
  if (events.length === 0) return [];
  // Sorted stably, so the first item of a repeated key is the one stored.
  const rows = [...events].sort(inWriteOrder);
  // The answer is one row: how many were stored and, only when some were not, which (decision 121).
  const [inserted] = await tx<{ stored: number; keys: [string, string][] | null }[]>`
    with stored as (
      insert into events (event_id, timestamp, event_type, platform, cloud, resource_type, resource_id,
        project_id, source, payload)
      select event_id, timestamp, event_type, platform, cloud, resource_type, resource_id, project_id, source,
        payload
      from rows from (json_to_recordset(${JSON.stringify(rows)}::json) as (event_id text,
        timestamp timestamptz, event_type text, platform text, cloud text, resource_type text,
        resource_id text, project_id text, source text, payload jsonb)) with ordinality as e(event_id,
        timestamp, event_type, platform, cloud, resource_type, resource_id, project_id, source, payload, n)
      order by e.n
      on conflict (event_id, timestamp) do nothing
      returning event_id, timestamp)
    select count(*)::int as stored,
      case when count(*) < ${events.length} then json_agg(json_build_array(event_id, timestamp)) end as keys
    from stored`;
  if (inserted?.stored === events.length) return [...events];
  const fresh = new Set((inserted?.keys ?? []).map(([id, at]) => keyText(id, pgInstant(at))));
  const stored: CanonicalEvent[] = [];
  for (const e of events) {
    // The first item of a key repeated within the batch is the stored one; the rest are duplicates.
    if (fresh.delete(keyText(e.event_id, e.timestamp))) stored.push(e);
  }
  return stored;
}

/**
 * The dead letters and the scope audit rows. Both statements are sent before this returns, so that a
 * COPY its caller sends next follows them (a statement sent behind a COPY would reach the server while
 * it reads the COPY's data).
 */
function writeRefusals(
  tx: TransactionSql,
  refusals: readonly Refusal[],
  ctx: IngestContext,
): Promise<unknown> {
  const writes: Promise<unknown>[] = [];
  const dead = refusals.filter((r) => r.kind !== "scope");
  if (dead.length > 0) {
    const rows = dead.map((r) => ({
      reason: r.reason,
      errors: r.errors,
      raw_body: JSON.stringify(r.raw) ?? "null",
      event_id: r.event_id,
      item_index: r.index,
      credential_id: ctx.principal?.id ?? null,
      request_id: ctx.requestId ?? null,
    }));
    writes.push(
      tx`
      insert into rejected_events (reason, errors, raw_body, event_id, item_index, credential_id, request_id)
      select reason, errors, raw_body, event_id, item_index, credential_id, request_id
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(reason text, errors jsonb, raw_body text,
        event_id text, item_index int, credential_id uuid, request_id text)
      order by item_index`.execute(),
    );
  }
  const violations = refusals.filter((r) => r.kind === "scope");
  if (violations.length > 0 && ctx.principal) {
    const principal = ctx.principal;
    const rows = violations.map((r) => {
      return {
        actor: `ingest_credential:${principal.id}`,
        action: "events.scope_violation",
        target: r.event_id,
        detail: {
          index: r.index,
          platform: r.claimed?.platform,
          cloud: r.claimed?.cloud,
          credential_platform: principal.platform,
          credential_cloud: principal.cloud,
          request_id: ctx.requestId ?? null,
        },
      };
    });
    writes.push(
      tx`
      insert into audit_log (actor, action, target, detail)
      select actor, action, target, detail
      from json_to_recordset(${JSON.stringify(rows)}::json) as a(actor text, action text, target text, detail jsonb)`.execute(),
    );
  }
  return Promise.all(writes);
}

/**
 * One ingest call end to end: screen, make sure the months' partitions exist (outside the batch
 * transaction, see EventPartitions), then store the batch in one transaction.
 */
export async function ingestItems(
  deps: {
    sql: Sql;
    partitions: EventPartitions;
    /** `stuckAfterSeconds` by default; a test shortens it. */
    stuckAfterSeconds?: number;
  },
  items: readonly unknown[],
  ctx: IngestContext,
): Promise<IngestOutcome> {
  const screened = screenItems(items, ctx);
  await deps.partitions.ensureFor(screened.candidates.map((c) => c.event.timestamp));
  const stuckAfter = deps.stuckAfterSeconds ?? stuckAfterSeconds;
  let path: InsertPath = "copy";
  for (;;) {
    // A batch that has not settled by then may be one the driver lost (decision 151).
    const watchdog = setTimeout(
      () => void endStuckTransactions(deps.sql, stuckAfter),
      (stuckAfter + 1) * 1000,
    );
    try {
      return await deps.sql.begin((tx) => ingestBatch(tx, screened, ctx, path));
    } catch (error) {
      // A key met by the COPY sends the batch to the conflict path, once.
      if (!(path === "copy" && error instanceof postgres.PostgresError && error.code === "23505"))
        throw error;
      path = "conflict";
    } finally {
      clearTimeout(watchdog);
    }
  }
}

/**
 * How long a transaction of this process may wait on the process before it counts as lost. A batch's
 * transaction waits on its process for milliseconds between statements; postgres.js 3.4.9 lost one
 * now and then after other connections of the pool were terminated (the reporting faults test, about
 * one run in ten): the server had answered, the driver never sent the next message, and the request,
 * the connection and the batch's locks stayed held for good. That cause is patched (decision 154);
 * the watchdog bounds any other.
 */
const stuckAfterSeconds = 30;

/**
 * Terminates this process's backends that are inside a transaction and have waited on the process
 * (`ClientRead`) for longer than `seconds`: the driver then sees its connection close and fails the
 * lost batch, which its caller answers 503 and retries, and the locks are free. The process's
 * connections share its `application_name` (`openDatabase`); a backend executing, or waiting on a
 * lock, is never touched.
 */
async function endStuckTransactions(sql: Sql, seconds: number): Promise<void> {
  await sql`select count(pg_terminate_backend(pid)) from pg_stat_activity
    where application_name = current_setting('application_name') and pid <> pg_backend_pid()
      and xact_start is not null and wait_event = 'ClientRead'
      and state_change < now() - make_interval(secs => ${seconds})`.catch(() => undefined);
}
