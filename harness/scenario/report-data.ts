import type { Comparison } from "../../lib/billing/compare/compare-oracle.ts";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { instantFromMs } from "../../lib/foundation/time/instant.ts";
import type { Period } from "../../lib/foundation/time/period.ts";
import type { Check } from "./check.ts";
import type { LateResource } from "./engine-output.ts";

/** Values per category over a shared axis (days, instants), as a chart draws them. */
export interface SeriesSet {
  labels: string[];
  series: { name: string; values: number[] }[];
}

/** One project's bill: its finalized statement, its credit note, and the adjustments that reached it. */
interface ProjectBill {
  key: string;
  /** The project's name in the registry, when it has one there. */
  name: string | null;
  statement: string;
  creditNote: string | null;
  /** Present when an adjustment reached the statement. */
  base?: string;
  adjustments?: { type: string; amount: string }[];
}

/** One fault of a clustered run as the report shows it on the month's timeline (`fault-timeline.ts`). */
export interface FaultMark {
  /** The month's virtual instant at the kill. */
  at: string;
  /** What was killed. */
  target: string;
  recoveredMs: number;
  restartedMs: number;
  /** How it recovered, the posts retried and the deliveries redelivered, in words. */
  detail: string;
}

/** Everything `report.html` shows, computed once from the run's artefacts. */
export interface ReportData {
  scenario: string;
  summary: string;
  seed: number;
  period: string;
  tenants: number;
  faults: readonly string[];
  passed: boolean;
  totalMs: number;
  stages: { stage: string; ms: number; line: string }[];
  checks: Check[];
  /** Events dated inside the month per day, by kind; `before` counts those dated before it. */
  eventsPerDay: SeriesSet & { before: number };
  /** Live resources by type, every six hours. */
  liveResources: SeriesSet;
  projects: ProjectBill[];
  late: { heldPerDay: SeriesSet; detected: LateResource[] } | null;
  /** The faults a clustered run played, on the month's timeline (absent for the others). */
  faultMarks?: FaultMark[];
  comparisons: { finalized: Comparison; corrected: Comparison | null };
}

interface EventLine {
  timestamp: string;
  event_type: string;
  resource_type: string;
}

/** The days of the month, `YYYY-MM-DD`. */
export function daysOf(period: Period): string[] {
  const days: string[] = [];
  for (let t = Date.parse(period.from); t < Date.parse(period.to); t += 86_400_000)
    days.push(instantFromMs(t).slice(0, 10));
  return days;
}

/** A chart's kind of an event: its resource type, with instance audits apart (they are most of the month). */
function kindOf(event: EventLine): string {
  return event.event_type === "compute.instance.exists" ? "instance audit" : event.resource_type;
}

function perDay(events: readonly EventLine[], period: Period, kind: (e: EventLine) => string) {
  const days = daysOf(period);
  const index = new Map(days.map((d, i) => [d, i]));
  const series = new Map<string, number[]>();
  let before = 0;
  for (const e of events) {
    if (e.timestamp < period.from) {
      before += 1;
      continue;
    }
    const at = index.get(e.timestamp.slice(0, 10));
    if (at === undefined) continue;
    const name = kind(e);
    const values = series.get(name) ?? days.map(() => 0);
    values[at] = (values[at] ?? 0) + 1;
    series.set(name, values);
  }
  return {
    labels: days,
    series: [...series].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, values]) => ({ name, values })),
    before,
  };
}

/** Events dated inside the month per day and kind (`events.jsonl` lines). */
export function eventsPerDay(lines: readonly string[], period: Period): SeriesSet & { before: number } {
  return perDay(
    lines.map((l) => JSON.parse(l) as EventLine),
    period,
    kindOf,
  );
}

/** Held events per day: the late share the correction books. */
export function heldPerDay(lines: readonly string[], period: Period): SeriesSet {
  const { labels, series } = perDay(
    lines.map((l) => JSON.parse(l) as EventLine),
    period,
    () => "held back",
  );
  return { labels, series };
}

/** How many resources of each type the oracle states alive, every six hours of the month (labels `YYYY-MM-DD HH:00`). */
export function liveResources(oracle: Oracle, period: Period): SeriesSet {
  const step = 6 * 3_600_000;
  const instants: number[] = [];
  for (let t = Date.parse(period.from); t < Date.parse(period.to); t += step) instants.push(t);
  const series = new Map<string, number[]>();
  for (const r of oracle.resources) {
    const values = series.get(r.resource_type) ?? instants.map(() => 0);
    for (const interval of r.intervals) {
      const from = Date.parse(interval.from);
      const to = Date.parse(interval.to);
      instants.forEach((t, i) => {
        if (from <= t && t < to) values[i] = (values[i] ?? 0) + 1;
      });
    }
    series.set(r.resource_type, values);
  }
  return {
    labels: instants.map((t) => `${instantFromMs(t).slice(0, 13).replace("T", " ")}:00`),
    series: [...series].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, values]) => ({ name, values })),
  };
}
