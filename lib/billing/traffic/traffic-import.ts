import { trafficSeries } from "./traffic-series.ts";

/** Traffic of one instance over one half-open span, as an oracle states it (decision 211). */
interface TrafficSpan {
  resource_id: string;
  from: string;
  to: string;
  egress_bytes: number;
  ingress_bytes: number;
}

/** One series in VictoriaMetrics' JSON-lines import form (`/api/v1/import`). */
export interface ImportSeries {
  metric: Record<string, string>;
  values: number[];
  timestamps: number[];
}

/**
 * An oracle's traffic as cumulative byte counters (pure): per instance one egress and one ingress
 * series under the names of `traffic-series.ts`, labelled with the cloud and the resource id, with a
 * sample at every boundary of every span, so that the counter at a span's end minus the counter at its
 * start is exactly the bytes the oracle states for it. Between spans the counter stays flat; it starts
 * at 0 at the first span's start. Spans may come in any order.
 */
export function trafficImportSeries(cloud: string, traffic: readonly TrafficSpan[]): ImportSeries[] {
  const byResource = new Map<string, TrafficSpan[]>();
  for (const span of traffic) {
    const list = byResource.get(span.resource_id) ?? [];
    list.push(span);
    byResource.set(span.resource_id, list);
  }
  const out: ImportSeries[] = [];
  for (const resourceId of [...byResource.keys()].sort()) {
    const spans = [...(byResource.get(resourceId) ?? [])].sort(
      (a, b) => Date.parse(a.from) - Date.parse(b.from),
    );
    for (const direction of ["egress", "ingress"] as const) {
      const timestamps: number[] = [];
      const values: number[] = [];
      let total = 0;
      const sample = (at: number) => {
        if (timestamps[timestamps.length - 1] === at) values[values.length - 1] = total;
        else {
          timestamps.push(at);
          values.push(total);
        }
      };
      for (const span of spans) {
        sample(Date.parse(span.from));
        total += direction === "egress" ? span.egress_bytes : span.ingress_bytes;
        sample(Date.parse(span.to));
      }
      out.push({
        metric: { __name__: trafficSeries[direction].prometheus, cloud, resource_id: resourceId },
        values,
        timestamps,
      });
    }
  }
  return out;
}

/** The import body: one JSON document per line. */
export function encodeImportLines(series: readonly ImportSeries[]): string {
  return series.map((s) => `${JSON.stringify(s)}\n`).join("");
}
