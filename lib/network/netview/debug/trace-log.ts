/**
 * The recent traces (`GET /api/v1/debug/traces`): the last `capacity` answers kept in memory, newest
 * first, so an operator can go back to what a colleague traced a minute ago, and an export can fetch
 * one by id. Bounded by count: a trace is a few kilobytes to a few hundred.
 */
import type { TraceView } from "./trace-view.ts";

interface TraceRecord {
  id: string;
  at: string;
  cluster: string;
  duration_ms: number;
  view: TraceView;
}

interface TraceSummary {
  id: string;
  at: string;
  cluster: string;
  datapath: string;
  inport: string;
  microflow: string;
  verdict: string;
  delivered: string[];
  duration_ms: number;
}

const defaultTraceCapacity = 100;

export class TraceLog {
  private readonly records: TraceRecord[] = [];

  constructor(readonly capacity = defaultTraceCapacity) {}

  add(record: TraceRecord): void {
    this.records.unshift(record);
    if (this.records.length > this.capacity) this.records.length = this.capacity;
  }

  /** Keeps a new trace under a fresh id and returns its record. */
  record(o: { cluster: string; view: TraceView; durationMs: number; atMs: number }): TraceRecord {
    const record = {
      id: crypto.randomUUID(),
      at: new Date(o.atMs).toISOString(),
      cluster: o.cluster,
      duration_ms: Math.round(o.durationMs * 1000) / 1000,
      view: o.view,
    };
    this.add(record);
    return record;
  }

  get(id: string): TraceRecord | undefined {
    return this.records.find((r) => r.id === id);
  }

  list(limit: number, cluster?: string): TraceSummary[] {
    return this.records
      .filter((r) => cluster === undefined || r.cluster === cluster)
      .slice(0, limit)
      .map((r) => ({
        id: r.id,
        at: r.at,
        cluster: r.cluster,
        datapath: r.view.datapath,
        inport: r.view.inport,
        microflow: r.view.microflow,
        verdict: r.view.outcome.verdict,
        delivered: r.view.outcome.delivered.map((d) => d.port),
        duration_ms: r.duration_ms,
      }));
  }
}
