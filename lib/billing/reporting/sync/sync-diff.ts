import { compare } from "../../../foundation/collections/compare.ts";
import { jsonEqual } from "../../../foundation/json/canonical-json.ts";
import type { JsonObject } from "../../../foundation/json/json-value.ts";
import { instantFromMs, msOf } from "../../../foundation/time/instant.ts";
import type { CanonicalEvent, PayloadEnvelope } from "../../events/event.ts";
import { derivedEventId } from "../../events/event-id.ts";
import { deletedState } from "../../history/fold.ts";
import { replaceSizeNames, type SizeNameTable } from "../ingest/size-names.ts";
import type { Resource } from "../reads/resource-list.ts";
import type { Observation, ObservedDeletion, ObservedResource } from "./observation.ts";

/** A projection row as the diff reads it: the served row, within one cloud and platform. */
export type ProjectedResource = Omit<Resource, "cloud" | "platform">;

export interface SyncDiffOptions {
  cloud: string;
  platform: string;
  /** The run instant (canonical): what is corrected now is dated here. */
  at: string;
  /** SVC_REPORTING_SYNC_SETTLE_S in milliseconds; 0 turns the window off. */
  settleMs: number;
  /** Recorded in every event's `payload.provider.sync_run`, so a stored event names the run that wrote it. */
  runId: string;
  /** The size names ingest will apply, per resource type: observed sizes are compared after them. */
  names: ReadonlyMap<string, SizeNameTable>;
}

/** Counts of one resource type in one run. */
export interface TypeCounts {
  resource_type: string;
  /** Live resources the platform listed. */
  observed: number;
  /** Observed resources the projection already agrees with. */
  unchanged: number;
  /** `sync.create` events: resources the projection lacks, or whose history holds no create. */
  created: number;
  /** `sync.update` events: state, size or owner differ. */
  updated: number;
  /** `sync.delete` events: resources the platform no longer has. */
  deleted: number;
  /** Left alone because the platform shows them mid-operation. */
  deferred: number;
  /** Left alone because the platform or the projection changed them within the settle window. */
  settling: number;
}

/** Every count of `TypeCounts` at zero: a type's first tally, and the run's. */
export const noCounts = (): Omit<TypeCounts, "resource_type"> => ({
  observed: 0,
  unchanged: 0,
  created: 0,
  updated: 0,
  deleted: 0,
  deferred: 0,
  settling: 0,
});

interface SyncPlan {
  /** The difference as synthetic events, in (resource_type, resource_id, timestamp) order. */
  events: CanonicalEvent[];
  /** One entry per resource type listed, sorted by type. */
  counts: TypeCounts[];
}

type SyncType = "sync.create" | "sync.update" | "sync.delete";

const keyOf = (resourceType: string, resourceId: string) => JSON.stringify([resourceType, resourceId]);

/** The observed size as ingest will store it: names replaced where the cloud has them. */
function resolvedSize(resource: ObservedResource, names: ReadonlyMap<string, SizeNameTable>): JsonObject {
  return replaceSizeNames({ size: resource.size }, names.get(resource.resource_type)).size ?? resource.size;
}

/**
 * Whether the projection already says what the platform shows: same state and owner, and every size
 * member the adapter reports equal (members only the collector books, which sizes admit, do not count).
 */
function agrees(row: ProjectedResource, resource: ObservedResource, size: JsonObject): boolean {
  if (row.state !== resource.state || row.project_id !== resource.project_id) return false;
  return Object.entries(size).every(([member, value]) => jsonEqual(value, row.size?.[member]));
}

const isLive = (row: ProjectedResource) => row.deleted_at === null && row.state !== deletedState;

/**
 * The difference between what the platform shows and what the projection holds, as the synthetic
 * events that correct it (docs/reconciliation.md#what-a-run-corrects; decisions 170–173). Pure:
 *
 * - A resource the platform shows mid-operation is deferred, whatever else holds.
 * - Nothing is corrected that the platform changed (its `changed_at` or `created_at`, or the dated
 *   deletion) or the projection recorded an event for (`last_event_at`) at or after `at - settle`,
 *   nor anything changed at or after `at` even with the window off: the run cannot judge it.
 * - A live resource the projection lacks gets a `sync.create` dated at the platform's creation instant
 *   (at `at` when it reports none), so the hours since are billed; one whose row was
 *   deleted comes back with a `sync.create` at `at`; a row whose history holds no create gets one at
 *   the platform's creation instant too. A difference of state, size or owner is a `sync.update` at
 *   `at` (spec: dated at poll time, so the earlier interval stays as booked).
 * - A live row the platform no longer lists gets a `sync.delete` at the dated deletion when the
 *   platform reports one (not before the row's last event), else at `at`. A deletion of a resource the projection never knew is left
 *   alone: what it was while it lived is unknown.
 *
 * Event ids are derived from (cloud, resource, type, timestamp), so a run repeated at the same instant
 * derives the same events and ingest stores them once.
 */
export function diffObservation(
  observation: Observation,
  projection: readonly ProjectedResource[],
  options: SyncDiffOptions,
): SyncPlan {
  const plan = new PlanBuilder(options, observation.resource_types);
  const rows = new Map<string, ProjectedResource>();
  for (const row of projection) {
    if (plan.lists(row.resource_type)) rows.set(keyOf(row.resource_type, row.resource_id), row);
  }
  const seen = diffListed(observation.resources, rows, plan, options);
  const deletions = new Map<string, ObservedDeletion>();
  for (const d of observation.deletions) deletions.set(keyOf(d.resource_type, d.resource_id), d);
  diffUnlisted(rows, seen, deletions, plan);
  return plan.done();
}

/** The resources the platform lists, against their rows: creates and updates. Returns the keys seen. */
function diffListed(
  resources: readonly ObservedResource[],
  rows: ReadonlyMap<string, ProjectedResource>,
  plan: PlanBuilder,
  options: SyncDiffOptions,
): Set<string> {
  const { at } = options;
  const seen = new Set<string>();
  for (const resource of resources) {
    const key = keyOf(resource.resource_type, resource.resource_id);
    if (seen.has(key) || !plan.lists(resource.resource_type)) continue;
    seen.add(key);
    const c = plan.countsOf(resource.resource_type);
    c.observed++;
    if (resource.in_transition) {
      c.deferred++;
      continue;
    }
    const row = rows.get(key);
    if (
      plan.recent(resource.changed_at) ||
      plan.recent(resource.created_at) ||
      plan.recent(row?.last_event_at)
    ) {
      c.settling++;
      continue;
    }
    const payload = {
      state: resource.state,
      size: resource.size,
      provider: plan.provider(resource.provider),
    };
    if (row === undefined || !isLive(row)) {
      // A resource the projection lacks bills from its creation; one that came back, from now.
      plan.emit("sync.create", resource, row === undefined ? (resource.created_at ?? at) : at, payload);
      c.created++;
      continue;
    }
    let changed = false;
    if (row.created_at === null && resource.created_at !== null) {
      plan.emit("sync.create", resource, resource.created_at, payload);
      c.created++;
      changed = true;
    }
    if (!agrees(row, resource, resolvedSize(resource, options.names))) {
      plan.emit("sync.update", resource, at, payload);
      c.updated++;
      changed = true;
    }
    if (!changed) c.unchanged++;
  }
  return seen;
}

/** The live rows the platform no longer lists: deletes, at the dated deletion when it reports one. */
function diffUnlisted(
  rows: ReadonlyMap<string, ProjectedResource>,
  seen: ReadonlySet<string>,
  deletions: ReadonlyMap<string, ObservedDeletion>,
  plan: PlanBuilder,
): void {
  for (const [key, row] of rows) {
    if (seen.has(key) || !isLive(row)) continue;
    const c = plan.countsOf(row.resource_type);
    const deletion = deletions.get(key);
    if (plan.recent(row.last_event_at) || plan.recent(deletion?.deleted_at)) {
      c.settling++;
      continue;
    }
    // A dated deletion is booked at its instant, but never before the row's last event: a create
    // stored after it would otherwise bring the resource back when the history is folded.
    const when = deletion === undefined ? plan.at : latest(deletion.deleted_at, row.last_event_at);
    plan.emit("sync.delete", row, when, { provider: plan.provider({}) });
    c.deleted++;
  }
}

/** What one run's diff collects: its events, the counts per type, and what it judges by. */
class PlanBuilder {
  readonly at: string;
  private readonly types: ReadonlySet<string>;
  private readonly counts = new Map<string, TypeCounts>();
  private readonly events: CanonicalEvent[] = [];
  /** What changed at or after it is beyond what the run can judge, window or not. */
  private readonly cutoff: string;

  constructor(
    private readonly options: SyncDiffOptions,
    listed: readonly string[],
  ) {
    this.at = options.at;
    this.cutoff = options.settleMs > 0 ? instantFromMs(msOf(options.at) - options.settleMs) : options.at;
    this.types = new Set(listed);
    for (const t of this.types) this.countsOf(t);
  }

  /** Whether the adapter listed this type whole. */
  lists(resourceType: string): boolean {
    return this.types.has(resourceType);
  }

  recent(instant: string | null | undefined): boolean {
    return instant !== null && instant !== undefined && instant >= this.cutoff;
  }

  countsOf(resourceType: string): TypeCounts {
    let c = this.counts.get(resourceType);
    if (c === undefined) {
      c = { resource_type: resourceType, ...noCounts() };
      this.counts.set(resourceType, c);
    }
    return c;
  }

  /** Audit data of an event, naming the run that wrote it. */
  provider(extra: JsonObject): JsonObject {
    return { ...extra, sync_run: this.options.runId };
  }

  emit(
    eventType: SyncType,
    target: { resource_type: string; resource_id: string; project_id: string },
    timestamp: string,
    payload: PayloadEnvelope,
  ): void {
    const { cloud, platform } = this.options;
    this.events.push({
      event_id: derivedEventId({
        platform,
        cloud,
        resource_id: target.resource_id,
        event_type: eventType,
        timestamp,
      }),
      timestamp,
      event_type: eventType,
      platform,
      cloud,
      resource_type: target.resource_type,
      resource_id: target.resource_id,
      project_id: target.project_id,
      source: "reconciliation",
      payload,
    });
  }

  done(): SyncPlan {
    const events = [...this.events].sort(
      (a, b) =>
        compare(a.resource_type, b.resource_type) ||
        compare(a.resource_id, b.resource_id) ||
        compare(a.timestamp, b.timestamp),
    );
    return {
      events,
      counts: [...this.counts.values()].sort((a, b) => compare(a.resource_type, b.resource_type)),
    };
  }
}

/** The later of two canonical instants (string order is time order). */
function latest(a: string, b: string): string {
  return compare(a, b) < 0 ? b : a;
}
