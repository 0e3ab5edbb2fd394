import { ValueType } from "@opentelemetry/api";
import { ExportResultCode, millisToHrTime } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AggregationTemporality,
  DataPointType,
  type ResourceMetrics,
  type SumMetricData,
} from "@opentelemetry/sdk-metrics";
import type { Logger } from "../../foundation/log/logger.ts";
import { trafficSeries, trafficUnit } from "../traffic/traffic-series.ts";
import type { TrafficCounters, TrafficSample } from "./traffic-counters.ts";
import { untilReached, type VirtualClock } from "./virtual-clock.ts";

export interface OtlpPushSettings {
  /** The OTLP/HTTP metrics endpoint, e.g. `https://metrics.example/opentelemetry/v1/metrics`. */
  url: URL;
  user: string;
  password: string;
}

/** Grid instants pushed in one request at most: a factor-0 run passes thousands at once. */
const gridPerRequest = 48;

/**
 * The OTLP push of per-instance traffic (docs/simulator.md#pushing-traffic-over-otlp): each sample becomes one point of
 * two cumulative monotonic sums, `platform_a.instance.network.egress` and `.ingress` (unit `By`,
 * attributes `cloud` and `resource_id`), sent with the OpenTelemetry OTLP/HTTP protobuf exporter
 * and basic authentication. Points carry virtual timestamps (decision 244).
 */
export class OtlpTrafficPush {
  private readonly exporter: OTLPMetricExporter;
  private readonly resource = resourceFromAttributes({ "service.name": "svc-simulator" });

  constructor(
    settings: OtlpPushSettings,
    private readonly cloud: string,
    private readonly logger: Logger,
  ) {
    this.exporter = new OTLPMetricExporter({
      url: settings.url.toString(),
      headers: { authorization: `Basic ${btoa(`${settings.user}:${settings.password}`)}` },
      timeoutMillis: 30_000,
    });
  }

  /** Sends `samples`; a refusal is logged and the points are not sent again. */
  async push(samples: readonly TrafficSample[]): Promise<boolean> {
    if (samples.length === 0) return true;
    const metric = (direction: "egress" | "ingress"): SumMetricData => ({
      descriptor: {
        name: trafficSeries[direction].otlp,
        description: `bytes an instance ${direction === "egress" ? "sent" : "received"} since its first instant`,
        unit: trafficUnit,
        valueType: ValueType.INT,
      },
      aggregationTemporality: AggregationTemporality.CUMULATIVE,
      dataPointType: DataPointType.SUM,
      isMonotonic: true,
      dataPoints: samples.map((s) => ({
        startTime: millisToHrTime(s.start),
        endTime: millisToHrTime(s.at),
        attributes: { cloud: this.cloud, resource_id: s.resource_id },
        value: s[direction],
      })),
    });
    const metrics: ResourceMetrics = {
      resource: this.resource,
      scopeMetrics: [{ scope: { name: "svc-simulator" }, metrics: [metric("egress"), metric("ingress")] }],
    };
    const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) =>
      this.exporter.export(metrics, resolve),
    );
    if (result.code === ExportResultCode.SUCCESS) return true;
    this.logger.warn(
      { points: samples.length * 2, err_message: result.error?.message },
      "the OTLP push of traffic failed; those points are not sent again",
    );
    return false;
  }

  async shutdown(): Promise<void> {
    await this.exporter.shutdown();
  }
}

/**
 * Pushes the traffic counters on the metrics grid as the virtual clock passes it: at every grid
 * instant from the month's start, a sample of each instance that lived since the previous one. When
 * `finished` aborts (the month is published), the rest of the grid up to the month's end goes at once;
 * when `signal` aborts (a stop), nothing more is pushed.
 */
export async function pushTrafficOnClock(input: {
  counters: TrafficCounters;
  push: Pick<OtlpTrafficPush, "push">;
  clock: VirtualClock;
  gridMs: number;
  fromMs: number;
  toMs: number;
  signal: AbortSignal;
  finished: AbortSignal;
}): Promise<void> {
  const { counters, clock, gridMs, fromMs, toMs, signal, finished } = input;
  const next = (after: number) =>
    Math.min(toMs, fromMs + (Math.floor((after - fromMs) / gridMs) + 1) * gridMs);
  let last = fromMs;
  while (last < toMs && !signal.aborted) {
    const due = next(last);
    await untilReached(clock, due, AbortSignal.any([signal, finished]));
    if (signal.aborted) return;
    const reached = finished.aborted ? toMs : Math.min(toMs, Math.floor(clock.now()));
    const samples: TrafficSample[] = [];
    for (let n = 0; n < gridPerRequest && last < reached; n++) {
      const at = next(last);
      if (at > reached) break;
      samples.push(...counters.samplesBetween(last, at));
      last = at;
    }
    await input.push.push(samples);
  }
}
