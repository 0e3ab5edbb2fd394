import type { Month } from "./month.ts";
import { buildOracle } from "./oracle.ts";

/** One sample of an instance's two cumulative byte counters. */
export interface TrafficSample {
  resource_id: string;
  /** Epoch milliseconds of the sample. */
  at: number;
  /** Where the counters start (0 bytes): the instance's first instant in the month. */
  start: number;
  egress: number;
  ingress: number;
}

interface Span {
  from: number;
  to: number;
  egress: number;
  ingress: number;
  running: boolean;
  /** Counters at the span's start. */
  egressBefore: number;
  ingressBefore: number;
}

interface Counter {
  resource_id: string;
  spans: Span[];
  egressRate: number;
  ingressRate: number;
}

/**
 * The month's traffic as cumulative byte counters per instance, read from the oracle's own traffic
 * (decision 211), so a counter at a span's end minus the counter at its start is exactly the bytes the
 * oracle states for the span. Inside a running span the counter grows at the instance's rate,
 * `floor(rate × seconds)`, reaching the span's bytes at its end; a stopped span keeps it flat.
 */
export class TrafficCounters {
  private readonly counters: Counter[] = [];

  constructor(month: Month) {
    const oracle = buildOracle(month, [], new Map());
    const rates = new Map(
      month.resources.flatMap((r) => (r.traffic === null ? [] : [[r.resource_id, r.traffic] as const])),
    );
    const states = new Map<string, string>();
    for (const r of oracle.resources) {
      for (const i of r.intervals) states.set(`${r.resource_id}\u0000${i.from}`, i.state);
    }
    let current = null as Counter | null;
    for (const span of oracle.traffic) {
      if (current?.resource_id !== span.resource_id) {
        const rate = rates.get(span.resource_id);
        current = {
          resource_id: span.resource_id,
          spans: [],
          egressRate: rate?.egress_rate ?? 0,
          ingressRate: rate?.ingress_rate ?? 0,
        };
        this.counters.push(current);
      }
      const last = current.spans[current.spans.length - 1];
      current.spans.push({
        from: Date.parse(span.from),
        to: Date.parse(span.to),
        egress: span.egress_bytes,
        ingress: span.ingress_bytes,
        running: states.get(`${span.resource_id}\u0000${span.from}`) === "active",
        egressBefore: last === undefined ? 0 : last.egressBefore + last.egress,
        ingressBefore: last === undefined ? 0 : last.ingressBefore + last.ingress,
      });
    }
  }

  /**
   * A sample of every instance that lived in (after, at], taken at `at`, or at the instance's end
   * when it ended before `at`, so the last sample of an instance carries its whole traffic.
   */
  samplesBetween(after: number, at: number): TrafficSample[] {
    const out: TrafficSample[] = [];
    for (const counter of this.counters) {
      const first = counter.spans[0] as Span;
      const end = (counter.spans[counter.spans.length - 1] as Span).to;
      if (first.from > at || end <= after) continue;
      const when = Math.min(at, end);
      out.push({ resource_id: counter.resource_id, at: when, start: first.from, ...valuesAt(counter, when) });
    }
    return out;
  }
}

function valuesAt(counter: Counter, at: number): { egress: number; ingress: number } {
  let span = counter.spans[0] as Span;
  for (const s of counter.spans) {
    if (s.from <= at) span = s;
    else break;
  }
  if (at >= span.to)
    return { egress: span.egressBefore + span.egress, ingress: span.ingressBefore + span.ingress };
  const grown = (rate: number, cap: number) =>
    span.running ? Math.min(cap, Math.floor((rate * (at - span.from)) / 1000)) : 0;
  return {
    egress: span.egressBefore + grown(counter.egressRate, span.egress),
    ingress: span.ingressBefore + grown(counter.ingressRate, span.ingress),
  };
}
