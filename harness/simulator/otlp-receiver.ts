import root from "otlp-transformer-decoder/build/src/generated/root";

/** One data point of a cumulative sum, as decoded from an OTLP request. */
interface DecodedPoint {
  metric: string;
  unit: string;
  monotonic: boolean;
  /** 2 is CUMULATIVE in OTLP's AggregationTemporality. */
  temporality: number;
  attributes: Record<string, string>;
  startMs: number;
  atMs: number;
  value: number;
}

interface Decoder {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: { longs: StringConstructor; enums: NumberConstructor }): unknown;
}

interface RequestObject {
  resourceMetrics?: {
    scopeMetrics?: {
      metrics?: {
        name: string;
        unit?: string;
        sum?: {
          isMonotonic?: boolean;
          aggregationTemporality?: number;
          dataPoints?: {
            attributes?: { key: string; value: { stringValue?: string } }[];
            startTimeUnixNano: string;
            timeUnixNano: string;
            asInt?: string;
          }[];
        };
      }[];
    }[];
  }[];
}

// The OTLP protos as the OpenTelemetry project compiles them (protobufjs static module of
// @opentelemetry/otlp-transformer 0.53, installed under an alias for tests only).
const request = (
  root as unknown as {
    opentelemetry: { proto: { collector: { metrics: { v1: { ExportMetricsServiceRequest: Decoder } } } } };
  }
).opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

/** Decodes one `ExportMetricsServiceRequest` body into its sum points. */
function decodeMetricsRequest(body: Uint8Array): DecodedPoint[] {
  const object = request.toObject(request.decode(body), { longs: String, enums: Number }) as RequestObject;
  const points: DecodedPoint[] = [];
  for (const rm of object.resourceMetrics ?? []) {
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        for (const p of m.sum?.dataPoints ?? []) {
          points.push({
            metric: m.name,
            unit: m.unit ?? "",
            monotonic: m.sum?.isMonotonic ?? false,
            temporality: m.sum?.aggregationTemporality ?? 0,
            attributes: Object.fromEntries(
              (p.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? ""]),
            ),
            startMs: Number(BigInt(p.startTimeUnixNano) / 1_000_000n),
            atMs: Number(BigInt(p.timeUnixNano) / 1_000_000n),
            value: Number(p.asInt ?? 0),
          });
        }
      }
    }
  }
  return points;
}

/** An OTLP/HTTP metrics receiver for tests: keeps every request's auth header and decoded points. */
export interface OtlpReceiver {
  readonly url: string;
  readonly points: DecodedPoint[];
  readonly authorizations: (string | null)[];
  readonly contentTypes: (string | null)[];
  stop(): Promise<void>;
}

export function startOtlpReceiver(): OtlpReceiver {
  const points: DecodedPoint[] = [];
  const authorizations: (string | null)[] = [];
  const contentTypes: (string | null)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      authorizations.push(req.headers.get("authorization"));
      contentTypes.push(req.headers.get("content-type"));
      points.push(...decodeMetricsRequest(new Uint8Array(await req.arrayBuffer())));
      return new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1/metrics`,
    points,
    authorizations,
    contentTypes,
    async stop() {
      await server.stop(true);
    },
  };
}
