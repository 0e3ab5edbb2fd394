import type { JsonObject } from "../../../foundation/json/json-value.ts";

/**
 * What a platform adapter reports of a cloud at one run (docs/reconciliation.md): the
 * live resources of every type it lists, the deletions it can date, and the size names it lists. The
 * sync diffs it against the projection (`sync-diff.ts`); an adapter builds it and knows nothing of
 * the projection.
 */
export interface ObservedResource {
  resource_type: string;
  resource_id: string;
  project_id: string;
  /** The canonical state, read as the collector's mapping reads it, so both book the same value. */
  state: string;
  /** The size as the collector's mapping builds it (ids where notifications carry ids). */
  size: JsonObject;
  /** The platform's creation instant (canonical), when it reports one. */
  created_at: string | null;
  /** The platform's last change of the resource (canonical), when it reports one. */
  changed_at: string | null;
  /** The platform shows the resource mid-operation (a task under way, a pending status). */
  in_transition: boolean;
  /** A few listed members kept for audit in `payload.provider`. */
  provider: JsonObject;
}

/** A resource the platform reports deleted, with the instant it was deleted. */
export interface ObservedDeletion {
  resource_type: string;
  resource_id: string;
  project_id: string;
  deleted_at: string;
}

/** One size-names row as the platform lists it (docs/reporting-api.md#size-names): `value` becomes `name`. */
export interface ListedSizeName {
  resource_type: string;
  member: string;
  value: string;
  name: string;
}

export interface Observation {
  /** Every type listed whole: projection rows of these types missing from `resources` are gone. */
  resource_types: readonly string[];
  resources: readonly ObservedResource[];
  deletions: readonly ObservedDeletion[];
  /** The names the platform lists, replacing the cloud's rows; absent when the adapter lists none. */
  size_names?: readonly ListedSizeName[];
}

/** What a sync asks of an adapter for one run. */
export interface ObserveRequest {
  /** The run instant (canonical): deletions are asked for no further back than 24 hours before it. */
  at: string;
  /** Aborted when the run's budget is spent: every request of the adapter stops. */
  signal: AbortSignal;
}
