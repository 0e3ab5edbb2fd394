import { compare } from "../../foundation/collections/compare.ts";
import type { JsonObject } from "../../foundation/json/json-value.ts";
import { instantFromMs } from "../../foundation/time/instant.ts";
import { canonicalFaultOrder, type FaultSwitch } from "./fault-switch.ts";
import { type Month, resourceKey, type SimResource, type Truth } from "./month.ts";

/**
 * Raised whenever booked transitions, size members, document members or states change
 * (docs/simulator.md#the-oracle). Format 5 adds the resource types `volume_snapshot` and
 * `volume_backup` (a month with `--extra-types`, decision 288); format 6 an image's `disk_format` and a
 * load balancer's `flavor` in their sizes, what a price may be chosen by (decision 296).
 */
export const oracleFormat = 6;

export interface OracleInterval {
  from: string;
  to: string;
  state: string;
  project_id: string;
  size: JsonObject;
}

export interface OracleResource {
  resource_type: string;
  resource_id: string;
  workload: string;
  intervals: OracleInterval[];
  faults: FaultSwitch[];
}

export interface OracleCount {
  project_id: string;
  event_type: string;
  count: number;
}

export interface OracleTraffic {
  resource_id: string;
  from: string;
  to: string;
  egress_bytes: number;
  ingress_bytes: number;
}

export interface Oracle {
  format: typeof oracleFormat;
  cloud: string;
  seed: number;
  period_from: string;
  period_to: string;
  resources: OracleResource[];
  counts: OracleCount[];
  faults: FaultSwitch[];
  traffic: OracleTraffic[];
}

/** The oracle's statement of one resource, with the resource's share of the counts and traffic. */
export interface ResourceStatement {
  /** Its `faults` are empty: the marks are known only once the bus is laid out. */
  resource: OracleResource;
  /** Its share of `counts`, one per (owner, type); months sum them. */
  counts: OracleCount[];
  traffic: OracleTraffic[];
}

/**
 * What the oracle states of one resource: built from the generator's truth alone (never from the
 * notifications, the mapping or the fold), so that comparing a fold of the events with it tests two
 * independent paths. Intervals are half-open, split on any change of state, size or owner, and clipped
 * to the month [fromMs, toMs).
 */
export function resourceStatement(resource: SimResource, fromMs: number, toMs: number): ResourceStatement {
  const spans = truthSpans(resource, fromMs, toMs);
  const traffic: OracleTraffic[] = [];
  if (resource.traffic !== null) {
    const { egress_rate, ingress_rate } = resource.traffic;
    for (const s of spans) {
      // Only a running instance moves bytes; stopped, shelved or building ones send nothing.
      const running = s.truth.state === "active";
      traffic.push({
        resource_id: resource.resource_id,
        from: instantFromMs(s.from),
        to: instantFromMs(s.to),
        egress_bytes: running ? Math.floor((egress_rate * (s.to - s.from)) / 1000) : 0,
        ingress_bytes: running ? Math.floor((ingress_rate * (s.to - s.from)) / 1000) : 0,
      });
    }
  }
  return {
    resource: {
      resource_type: resource.resource_type,
      resource_id: resource.resource_id,
      workload: resource.workload,
      intervals: spans.map((s) => ({
        from: instantFromMs(s.from),
        to: instantFromMs(s.to),
        state: s.truth.state,
        project_id: s.truth.project_id,
        size: s.truth.size,
      })),
      faults: [],
    },
    counts: countEvents(resource, fromMs, toMs),
    traffic,
  };
}

/** Order of `counts`: by owner, then event type. */
export function compareCounts(a: OracleCount, b: OracleCount): number {
  return compare(a.project_id, b.project_id) || compare(a.event_type, b.event_type);
}

/** Order of `traffic`: by instance, then instant. */
export function compareTraffic(a: OracleTraffic, b: OracleTraffic): number {
  return compare(a.resource_id, b.resource_id) || compare(a.from, b.from);
}

/**
 * The oracle of a month held in memory (`resourceStatement` for each resource); fault switches add
 * their marks and never change an interval.
 */
export function buildOracle(
  month: Month,
  faults: readonly FaultSwitch[],
  marks: Map<string, Set<FaultSwitch>>,
): Oracle {
  const from = Date.parse(month.period.from);
  const to = Date.parse(month.period.to);
  const resources: OracleResource[] = [];
  const traffic: OracleTraffic[] = [];
  const counts = new Map<string, OracleCount>();
  for (const resource of month.resources) {
    const statement = resourceStatement(resource, from, to);
    resources.push({
      ...statement.resource,
      faults: canonicalFaultOrder(marks.get(resourceKey(resource)) ?? []),
    });
    for (const row of statement.traffic) traffic.push(row);
    for (const count of statement.counts) {
      const key = `${count.project_id}\u0000${count.event_type}`;
      const sum = counts.get(key);
      if (sum === undefined) counts.set(key, { ...count });
      else sum.count += count.count;
    }
  }
  traffic.sort(compareTraffic);
  return {
    format: oracleFormat,
    cloud: month.cloud,
    seed: month.seed,
    period_from: month.period.from,
    period_to: month.period.to,
    resources,
    counts: [...counts.values()].sort(compareCounts),
    faults: canonicalFaultOrder(faults),
    traffic,
  };
}

interface Span {
  from: number;
  to: number;
  truth: Truth;
}

function sameTruth(a: Truth, b: Truth): boolean {
  return (
    a.state === b.state && a.project_id === b.project_id && JSON.stringify(a.size) === JSON.stringify(b.size)
  );
}

/** The resource's life as spans of unchanged truth, clipped to [from, to). */
function truthSpans(resource: SimResource, from: number, to: number): Span[] {
  const spans: Span[] = [];
  let open: { from: number; truth: Truth } | null = null;
  const close = (end: number) => {
    if (open === null) return;
    const f = Math.max(open.from, from);
    const t = Math.min(end, to);
    if (f < t) spans.push({ from: f, to: t, truth: open.truth });
    open = null;
  };
  for (const step of resource.steps) {
    if (!step.billable) continue;
    if (step.truth === null) close(step.at);
    else if (open === null) open = { from: step.at, truth: step.truth };
    else if (!sameTruth(open.truth, step.truth)) {
      close(step.at);
      open = { from: step.at, truth: step.truth };
    }
  }
  close(to);
  return spans;
}

/** Events the month expects recorded: billable transitions dated inside it, by owner after the event and type. */
function countEvents(resource: SimResource, from: number, to: number): OracleCount[] {
  const counts = new Map<string, OracleCount>();
  let owner = "";
  for (const step of resource.steps) {
    if (!step.billable) continue;
    owner = step.truth?.project_id ?? owner;
    if (step.at < from || step.at >= to) continue;
    const key = `${owner}\u0000${step.event_type}`;
    const count = counts.get(key) ?? { project_id: owner, event_type: step.event_type, count: 0 };
    count.count += 1;
    counts.set(key, count);
  }
  return [...counts.values()];
}
