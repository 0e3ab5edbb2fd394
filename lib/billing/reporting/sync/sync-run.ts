import type { ReservedSql, Sql } from "postgres";
import { SvcError } from "../../../foundation/errors/svc-error.ts";
import type { Logger } from "../../../foundation/log/logger.ts";
import { instantFromMs } from "../../../foundation/time/instant.ts";
import type { Cloud } from "../clouds/clouds-file.ts";
import { CloudsYamlError } from "../clouds/platform-a/clouds-yaml.ts";
import { PlatformAuthError } from "../clouds/platform-a/keystone.ts";
import { PlatformListingError } from "../clouds/platform-a/openstack-listing.ts";
import { pgInstant } from "../database.ts";
import type { EventPartitions } from "../event-partitions.ts";
import { type IngestOutcome, ingestItems, maxBatchItems } from "../ingest/ingest-batch.ts";
import { type SizeNameRow, type SizeNameTable, sizeNameTable } from "../ingest/size-names.ts";
import { storeSizeNames } from "./size-name-store.ts";
import { diffObservation, noCounts, type ProjectedResource, type TypeCounts } from "./sync-diff.ts";
import { withSyncLock } from "./sync-lock.ts";

/** What a run did: the `stats` of its `sync_runs` row, and the body of SyncResult beside its identity. */
interface SyncStats extends Omit<TypeCounts, "resource_type"> {
  accepted: number;
  duplicates: number;
  rejected: number;
  /** Size-name rows the run stored; null when the adapter lists none. */
  size_names: number | null;
  resource_types: TypeCounts[];
}

/** The answer of `POST /internal/sync/{cloud}` and of `reporting-admin sync` (docs/reconciliation.md). */
export interface SyncResult extends SyncStats {
  run_id: string;
  cloud: string;
  status: "succeeded";
  at: string;
  started_at: string;
  finished_at: string;
}

/** A run that started and failed: its `sync_runs` row says `failed` with the same reason (500). */
export class SyncRunFailedError extends SvcError {
  constructor(
    readonly runId: string,
    cloud: string,
    readonly reason: string,
    options: { cause?: unknown } = {},
  ) {
    super("internal", `sync run ${runId} of cloud ${cloud} failed: ${reason}`, options);
  }
}

interface SyncRunDeps {
  /** The pool: the run reserves one connection for its lock and row, and writes through another. */
  sql: Sql;
  partitions: EventPartitions;
  /** SVC_INGEST_REQUIRE_SIZE_SCHEMA, as for every ingest. */
  requireSizeSchema: boolean;
  logger: Logger;
  /** Each stored batch's outcome, for the ingest metrics of a server run. */
  onIngest?: (outcome: IngestOutcome) => void;
}

interface SyncRunRequest {
  cloud: Cloud;
  /** The run instant (canonical); the moment the run starts when absent. */
  at?: string;
  /** SVC_REPORTING_SYNC_SETTLE_S in milliseconds. */
  settleMs: number;
  /** SVC_REPORTING_SYNC_BUDGET_S in milliseconds: past it the run stops and ends failed. */
  budgetMs: number;
}

const emptyStats = (): SyncStats => ({
  ...noCounts(),
  accepted: 0,
  duplicates: 0,
  rejected: 0,
  size_names: null,
  resource_types: [],
});

/** Why a run failed, as its row and the 500 say it: the platform's own refusals name what refused. */
function reasonOf(error: unknown, budgetMs: number, budgetSpent: boolean): string {
  if (budgetSpent) return `the budget of ${budgetMs / 1000} s ran out`;
  if (
    error instanceof PlatformListingError ||
    error instanceof PlatformAuthError ||
    error instanceof CloudsYamlError ||
    error instanceof SvcError
  ) {
    return error.message;
  }
  return "the run failed unexpectedly; the server log names the cause";
}

async function readSizeNames(connection: ReservedSql, cloud: string): Promise<Map<string, SizeNameTable>> {
  const rows = await connection<({ resource_type: string } & SizeNameRow)[]>`
    select resource_type, member, value, name from size_names where cloud = ${cloud}`;
  const byType = new Map<string, SizeNameRow[]>();
  for (const row of rows) byType.set(row.resource_type, [...(byType.get(row.resource_type) ?? []), row]);
  return new Map([...byType].map(([type, list]) => [type, sizeNameTable(list)]));
}

async function readProjection(
  connection: ReservedSql,
  cloud: Cloud,
  types: readonly string[],
): Promise<ProjectedResource[]> {
  if (types.length === 0) return [];
  const rows = await connection<
    (Omit<ProjectedResource, "last_event_at"> & { last_event_timestamp: string })[]
  >`
    select resource_type, resource_id, project_id, state, size, created_at, deleted_at, last_event_timestamp
    from current_resources
    where cloud = ${cloud.config.name} and platform = ${cloud.config.platform}
      and resource_type = any(${types as string[]})`;
  return rows.map(({ last_event_timestamp, ...r }) => ({
    ...r,
    created_at: r.created_at === null ? null : pgInstant(r.created_at),
    deleted_at: r.deleted_at === null ? null : pgInstant(r.deleted_at),
    last_event_at: pgInstant(last_event_timestamp),
  }));
}

/**
 * One synchronous reconciliation run of a cloud (docs/reconciliation.md#post-internalsynccloud): under the
 * cloud's lock (409 while another run holds it, `sync-lock.ts`) a `sync_runs` row is written
 * `running`; the adapter observes the cloud; its size names replace the cloud's (so this run's events
 * are named by them); the observation is diffed against the projection (`sync-diff.ts`); and the
 * difference is ingested in batches through the ingest path, as source `reconciliation`, where derived
 * event ids keep a repeated run from writing anything twice. The row ends `succeeded` with the stats,
 * or `failed` with the reason, and a failure is thrown as `SyncRunFailedError`. The budget aborts the
 * platform's requests at once and stops the run before its next write; batches already stored stay,
 * and the next run completes what this one began.
 */
export async function runSync(deps: SyncRunDeps, request: SyncRunRequest): Promise<SyncResult> {
  const { cloud } = request;
  const name = cloud.config.name;
  return withSyncLock(deps.sql, name, async (connection) => {
    const startedMs = Date.now();
    const at = request.at ?? instantFromMs(startedMs);
    const started = instantFromMs(startedMs);
    const [row] = await connection<{ id: string }[]>`
      insert into sync_runs (cloud, status, run_at, started_at)
      values (${name}, 'running', ${at}, ${started}) returning id`;
    const runId = (row as { id: string }).id;
    const budget = new AbortController();
    const timer = setTimeout(() => budget.abort(), request.budgetMs);
    const stats = emptyStats();
    try {
      const signal = budget.signal;
      const observation = await cloud.adapter.observe({ at, signal });
      signal.throwIfAborted();
      if (observation.size_names !== undefined) {
        stats.size_names = await storeSizeNames(deps.sql, name, observation.size_names);
      }
      const names = await readSizeNames(connection, name);
      const projection = await readProjection(connection, cloud, observation.resource_types);
      const plan = diffObservation(observation, projection, {
        cloud: name,
        platform: cloud.config.platform,
        at,
        settleMs: request.settleMs,
        runId,
        names,
      });
      stats.resource_types = plan.counts;
      for (const c of plan.counts) {
        for (const k of [
          "observed",
          "unchanged",
          "created",
          "updated",
          "deleted",
          "deferred",
          "settling",
        ] as const) {
          stats[k] += c[k];
        }
      }
      for (let i = 0; i < plan.events.length; i += maxBatchItems) {
        signal.throwIfAborted();
        const outcome = await ingestItems(deps, plan.events.slice(i, i + maxBatchItems), {
          principal: null,
          pipeline: "reconciliation",
          requireSizeSchema: deps.requireSizeSchema,
          single: false,
          requestId: `sync:${runId}`,
        });
        deps.onIngest?.(outcome);
        stats.accepted += outcome.result.accepted;
        stats.duplicates += outcome.result.duplicates;
        stats.rejected += outcome.result.rejected.length;
      }
      signal.throwIfAborted();
      const finished = instantFromMs(Date.now());
      await connection`
        update sync_runs set status = 'succeeded', finished_at = ${finished}, stats = ${JSON.stringify(stats)}::jsonb
        where id = ${runId}`;
      return {
        run_id: runId,
        cloud: name,
        status: "succeeded",
        at,
        started_at: started,
        finished_at: finished,
        ...stats,
      };
    } catch (error) {
      const reason = reasonOf(error, request.budgetMs, budget.signal.aborted);
      deps.logger.warn({ err: error, cloud: name, run_id: runId }, `sync run failed: ${reason}`);
      await connection`
        update sync_runs set status = 'failed', finished_at = ${instantFromMs(Date.now())}, error = ${reason},
          stats = ${JSON.stringify(stats)}::jsonb
        where id = ${runId}`;
      throw new SyncRunFailedError(runId, name, reason, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  });
}
