import type { CounterSamples } from "./counter-increase.ts";
import type { CounterSource } from "./counter-sources.ts";

/** The metrics store could not be read; the run counts a `counter` warning per resource it needed. */
export class CounterStoreUnavailable extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = "CounterStoreUnavailable";
  }
}

interface CounterWindow {
  fromMs: number;
  toMs: number;
}

/** Reads the samples of one source's counters for a batch of resources of one cloud. */
export interface CounterStore {
  read(
    source: CounterSource,
    cloud: string,
    resourceIds: readonly string[],
    window: CounterWindow,
  ): Promise<Map<string, CounterSamples>>;
}

function labelValue(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
}

function regexLiteral(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * VictoriaMetrics' raw export (`/api/v1/export`), one POST per source and batch: the source's selector
 * narrowed by `extra_filters[]` to the cloud and the batch's resource ids, over the window widened by
 * the source's lookback. The export may split one series over several lines; they are merged and
 * sorted. Any failure to reach or read the store is a CounterStoreUnavailable.
 */
export function victoriaMetricsCounterStore(
  baseUrl: string,
  options: { timeoutMs?: number } = {},
): CounterStore {
  const base = baseUrl.replace(/\/$/, "");
  return {
    async read(source, cloud, resourceIds, window) {
      const out = new Map<string, { timestamps: number[]; values: number[] }>();
      if (resourceIds.length === 0) return out;
      const body = new URLSearchParams();
      body.append("match[]", source.selector);
      body.append(
        "extra_filters[]",
        `{${source.cloud_label}="${labelValue(cloud)}",${source.resource_label}=~"${labelValue(
          resourceIds.map(regexLiteral).join("|"),
        )}"}`,
      );
      body.append("start", String((window.fromMs - source.lookback_seconds * 1000) / 1000));
      body.append("end", String(window.toMs / 1000));
      let text: string;
      try {
        const response = await fetch(`${base}/api/v1/export`, {
          method: "POST",
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
        });
        text = await response.text();
        if (!response.ok) {
          throw new CounterStoreUnavailable(
            `the metrics store answered ${response.status}: ${text.slice(0, 200)}`,
          );
        }
      } catch (cause) {
        if (cause instanceof CounterStoreUnavailable) throw cause;
        throw new CounterStoreUnavailable("the metrics store cannot be reached", { cause });
      }
      for (const line of text.split("\n")) {
        if (line === "") continue;
        let parsed: { metric: Record<string, string>; values: number[]; timestamps: number[] };
        try {
          parsed = JSON.parse(line);
        } catch (cause) {
          throw new CounterStoreUnavailable("the metrics store answered a line that is not JSON", { cause });
        }
        const id = parsed.metric[source.resource_label];
        if (id === undefined) continue;
        const series = out.get(id) ?? { timestamps: [], values: [] };
        series.timestamps.push(...parsed.timestamps);
        series.values.push(...parsed.values);
        out.set(id, series);
      }
      for (const [id, series] of out) out.set(id, sortSamples(series));
      return out;
    },
  };
}

function sortSamples(series: { timestamps: number[]; values: number[] }): {
  timestamps: number[];
  values: number[];
} {
  const order = series.timestamps
    .map((_, i) => i)
    .sort((a, b) => (series.timestamps[a] as number) - (series.timestamps[b] as number));
  return {
    timestamps: order.map((i) => series.timestamps[i] as number),
    values: order.map((i) => series.values[i] as number),
  };
}
