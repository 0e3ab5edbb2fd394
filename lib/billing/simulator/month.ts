import type { JsonObject } from "../../foundation/json/json-value.ts";
import type { Period } from "../../foundation/time/period.ts";

export type ResourceType =
  | "instance"
  | "volume"
  | "volume_snapshot"
  | "volume_backup"
  | "floating_ip"
  | "image"
  | "loadbalancer";

export interface Tenant {
  /** keystone project id: 32 hex digits. */
  project_id: string;
  name: string;
  user_id: string;
  kind: "classic" | "infrastructure";
  /** External id of the cluster-manager project whose infrastructure tenant this is (`alpha`, `beta`). */
  cluster_manager: string | null;
}

/** What a resource is after a step, in canonical terms: the generator's own statement of the truth. */
export interface Truth {
  state: string;
  size: JsonObject;
  project_id: string;
}

/**
 * One notification the platform emits about a resource. A billable step books a transition; the
 * others are the noise real services send alongside (`.start` halves, `resize.end`, association
 * updates), which a collector must skip. `truth` is the resource after the step, null after a delete;
 * a step that is not billable never changes it.
 */
export interface Step {
  /** Epoch milliseconds; strictly increasing within a resource. */
  at: number;
  /** Microseconds past `at` (0–999): oslo timestamps carry them, canonical instants drop them. */
  micros: number;
  event_type: string;
  billable: boolean;
  truth: Truth | null;
  message_id: string;
  request_id: string;
}

/** Static facts of a resource that notifications carry and the truth does not need. */
export interface ResourceAttributes {
  name: string;
  user_id: string;
  /** instance: host; volume: the instance it is attached to; floating IP: the address. */
  [fact: string]: string | number;
}

export interface SimResource {
  resource_type: ResourceType;
  resource_id: string;
  workload: string;
  /** Created before the month; chosen for one in three classic-tenant instances, with their volumes and address. */
  pre_existing: boolean;
  attributes: ResourceAttributes;
  steps: Step[];
  /** Instances only: bytes per second sent and received while running. */
  traffic: { egress_rate: number; ingress_rate: number } | null;
}

export interface Month {
  seed: number;
  cloud: string;
  period: Period;
  tenants: Tenant[];
  /** Sorted by resource type, then id. */
  resources: SimResource[];
}

/** Scale of a month: classic tenants beside the two infrastructure tenants. */
export interface MonthScale {
  tenants: number;
}

export const defaultScale: MonthScale = { tenants: 10 };

/** Key of a resource in fault marks and comparisons: `type/id`. */
export function resourceKey(resource: { resource_type: string; resource_id: string }): string {
  return `${resource.resource_type}/${resource.resource_id}`;
}
