import { and, asc, gt, isNull, lt, or } from "drizzle-orm";
import postgres, { type Sql, type TransactionSql } from "postgres";
import { readAhead } from "../../foundation/async/read-ahead.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { canonicalInstant, canonicalInstantSql } from "../../foundation/postgres/canonical-instant.ts";
import { type CopyField, copyTextRows } from "../../foundation/postgres/copy-text-rows.ts";
import { drizzleHandle } from "../../foundation/postgres/drizzle-handle.ts";
import type { Period } from "../../foundation/time/period.ts";
import type { MonthEvent } from "../metering/meter-resource.ts";
import * as reportingSchema from "../reporting/schema.ts";
import { projectRelations, projects as projectsTable } from "../reporting/schema.ts";
import type { RegistryProject, RegistryRelation } from "../statements/registry.ts";
import { type Shard, shardCondition } from "./shards/shard.ts";

/**
 * What the engine reads from the reporting database: the event history (never the projection,
 * docs/reporting-api.md#history-and-projection) and the project registry. Read-only, in one repeatable-read snapshot per run, so the month,
 * the registry and the instant the run read them belong together.
 */
export function openReportingSource(url: string): Sql {
  return postgres(url, {
    max: 2,
    idle_timeout: 30,
    connect_timeout: 5,
    onnotice: () => {},
    connection: { TimeZone: "UTC", application_name: "svc-engine" },
  });
}

const canonical = canonicalInstantSql;

const instantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** An instant as an SQL literal: COPY takes no parameters, so the two instants are written in. */
function instantLiteral(instant: string): string {
  if (!instantPattern.test(instant))
    throw new RangeError(`not a canonical instant: ${JSON.stringify(instant)}`);
  return `'${instant}'::timestamptz`;
}

/**
 * The month's read, in resource order: every event dated before the period's end (a resource's whole
 * history, so one created before the month is metered from its create) and received by the run's
 * instant; within a resource by timestamp, which the resource index gives for free and which leaves the
 * fold's sort little to do. Provider data is dropped in the database: the fold never reads it and it is
 * most of a payload's bytes. The columns are `monthColumns`, in order. The bench scans exactly this
 * statement as its baseline.
 */
export function monthStatement(to: string, readAt: string, shard: Shard | null = null): string {
  return `select e.cloud, e.platform, e.resource_type, e.resource_id, e.event_id,
  ${canonical("e.timestamp")} as timestamp, e.event_type, e.project_id, e.payload - 'provider' as payload
  from events e where e.timestamp < ${instantLiteral(to)} and e.received_at <= ${instantLiteral(readAt)}
  ${shard === null ? "" : `and ${shardCondition(shard, "e")}`}
  order by e.cloud, e.resource_type, e.resource_id, e.timestamp`;
}

const monthColumns = 9;

/** Rows per batch handed to metering: large enough that round trips do not count, small enough for memory. */
export const monthBatchRows = 5_000;

/**
 * Builds the fold's events from the month's COPY rows (fields are `monthStatement`'s columns). A
 * resource's events mostly carry the same payload one after the other (nova's daily audits repeat
 * the state and size): a payload equal to the previous row's is not parsed again, its object is
 * shared. Nothing downstream writes to a payload, so sharing is safe and its size object is then the
 * same object, which the fold compares by identity first.
 */
function monthEvents(): (f: readonly CopyField[]) => MonthEvent {
  let text: string | null = null;
  let payload: JsonObject = {};
  return (f) => {
    const payloadText = f[8] as string;
    if (payloadText !== text) {
      payload = JSON.parse(payloadText) as JsonObject;
      text = payloadText;
    }
    return {
      cloud: f[0] as string,
      platform: f[1] as string,
      resource_type: f[2] as string,
      resource_id: f[3] as string,
      event_id: f[4] as string,
      timestamp: f[5] as string,
      event_type: f[6] as string,
      project_id: f[7] as string,
      payload,
    };
  };
}

/**
 * The month's rows through `COPY (monthStatement) TO STDOUT`, in batches (decision 432): the same rows
 * in the same order as the select, parsed from COPY's text by `copyTextRows`.
 */
export async function* monthRows(
  sql: Sql | TransactionSql,
  to: string,
  readAt: string,
  shard: Shard | null = null,
): AsyncGenerator<MonthEvent[]> {
  const stream = await sql.unsafe(`copy (${monthStatement(to, readAt, shard)}) to stdout`).readable();
  yield* copyTextRows(stream, { columns: monthColumns, row: monthEvents(), batch: monthBatchRows });
}

export interface MonthSnapshot {
  /** The instant the run read the month (the database's clock): later arrivals are late. */
  readAt: string;
  rows: AsyncIterable<readonly MonthEvent[]>;
  projects: RegistryProject[];
  relations: RegistryRelation[];
}

/**
 * The registry as the run reads it, through the Reporting schema (`lib/billing/reporting/schema.ts`):
 * every project, and the relations whose span overlaps the period (decision 410).
 */
async function readRegistry(
  tx: TransactionSql,
  period: Period,
): Promise<{ projects: RegistryProject[]; relations: RegistryRelation[] }> {
  const db = drizzleHandle(tx, reportingSchema);
  const projects = await db
    .select({
      id: projectsTable.id,
      platform: projectsTable.platform,
      cloud: projectsTable.cloud,
      externalId: projectsTable.externalId,
    })
    .from(projectsTable)
    .orderBy(asc(projectsTable.cloud), asc(projectsTable.externalId));
  const r = projectRelations;
  const relations = await db
    .select({
      id: r.id,
      sourceId: r.sourceId,
      targetId: r.targetId,
      relationType: r.relationType,
      metadata: r.metadata,
      validFrom: canonicalInstant<string>(r.validFrom),
      validTo: canonicalInstant<string | null>(r.validTo),
    })
    .from(r)
    .where(and(lt(r.validFrom, period.to), or(isNull(r.validTo), gt(r.validTo, period.from))));
  return { projects, relations };
}

/** `work` in one repeatable-read, read-only transaction of the reporting database. */
async function inSnapshot<T>(sql: Sql, work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  let result: T | undefined;
  await sql.begin("isolation level repeatable read read only", async (tx) => {
    result = await work(tx);
  });
  return result as T;
}

async function databaseClock(tx: TransactionSql): Promise<string> {
  const [clock] = await tx.unsafe<{ now: string }[]>(`select ${canonical("now()")} as now`);
  return (clock as { now: string }).now;
}

/** Runs `work` over one consistent snapshot of the month and the registry. */
export function withMonthSnapshot<T>(
  sql: Sql,
  period: Period,
  work: (snapshot: MonthSnapshot) => Promise<T>,
): Promise<T> {
  return inSnapshot(sql, async (tx) => {
    const readAt = await databaseClock(tx);
    const registry = await readRegistry(tx, period);
    // Read ahead: the database produces the next batch while the engine meters this one.
    const rows = readAhead(monthRows(tx, period.to, readAt));
    return work({ readAt, rows, ...registry });
  });
}

/** The snapshot a run spread over workers shares (decision 470): its id, instant and registry. */
export interface SharedSnapshot {
  /** What `pg_export_snapshot()` named: each worker reads the month in this very snapshot. */
  id: string;
  readAt: string;
  projects: RegistryProject[];
  relations: RegistryRelation[];
}

/**
 * The coordinator's side of a run spread over workers: the snapshot is taken and exported, and held
 * open while `work` runs (a snapshot can be imported only while the transaction that exported it
 * lives), so every worker reads exactly the month a single process would have read.
 */
export function withSharedSnapshot<T>(
  sql: Sql,
  period: Period,
  work: (snapshot: SharedSnapshot) => Promise<T>,
): Promise<T> {
  return inSnapshot(sql, async (tx) => {
    const readAt = await databaseClock(tx);
    const [exported] = await tx.unsafe<{ id: string }[]>("select pg_export_snapshot() as id");
    const registry = await readRegistry(tx, period);
    return work({ id: (exported as { id: string }).id, readAt, ...registry });
  });
}

const snapshotIdPattern = /^[0-9A-F]+-[0-9A-F]+(-[0-9]+)?$/i;

/**
 * A worker's side: the coordinator's exported snapshot imported (`set transaction snapshot` takes no
 * parameter, so its id is checked and written in), then the registry and the shard's rows of the
 * month, read at the coordinator's instant.
 */
export function withShardSnapshot<T>(
  sql: Sql,
  period: Period,
  shared: { id: string; readAt: string; shard: Shard },
  work: (snapshot: MonthSnapshot) => Promise<T>,
): Promise<T> {
  if (!snapshotIdPattern.test(shared.id))
    throw new RangeError(`not a snapshot id: ${JSON.stringify(shared.id)}`);
  return inSnapshot(sql, async (tx) => {
    await tx.unsafe(`set transaction snapshot '${shared.id}'`);
    const registry = await readRegistry(tx, period);
    const rows = readAhead(monthRows(tx, period.to, shared.readAt, shared.shard));
    return work({ readAt: shared.readAt, rows, ...registry });
  });
}
