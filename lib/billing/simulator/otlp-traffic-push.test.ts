import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type OtlpReceiver, startOtlpReceiver } from "../../../harness/simulator/otlp-receiver.ts";
import { createLogger } from "../../foundation/log/logger.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { trafficSeries } from "../traffic/traffic-series.ts";
import { generateMonth } from "./generate-month.ts";
import { buildOracle } from "./oracle.ts";
import { OtlpTrafficPush, pushTrafficOnClock } from "./otlp-traffic-push.ts";
import { TrafficCounters } from "./traffic-counters.ts";
import { VirtualClock } from "./virtual-clock.ts";

const period = parsePeriod("2026-10");
const from = Date.parse(period.from);
const to = Date.parse(period.to);
const month = generateMonth({ seed: 9, period, cloud: "cloud-1", scale: { tenants: 2 } });
const oracle = buildOracle(month, [], new Map());
const logger = createLogger({ service: "svc-simulator-test", level: "ERROR" });
const hour = 3_600_000;
let receiver: OtlpReceiver;

beforeAll(() => {
  receiver = startOtlpReceiver();
});

afterAll(async () => {
  await receiver.stop();
});

function push() {
  return new OtlpTrafficPush({ url: new URL(receiver.url), user: "sim", password: "pw" }, "cloud-1", logger);
}

describe("the OTLP push of traffic", () => {
  test("decoded, the pushed points are the oracle's traffic as cumulative counters on the grid", async () => {
    receiver.points.length = 0;
    const finished = new AbortController();
    finished.abort();
    const pusher = push();
    await pushTrafficOnClock({
      counters: new TrafficCounters(month),
      push: pusher,
      clock: new VirtualClock(from, 0),
      gridMs: 6 * hour,
      fromMs: from,
      toMs: to,
      signal: new AbortController().signal,
      finished: finished.signal,
    });
    await pusher.shutdown();
    expect(new Set(receiver.authorizations)).toEqual(new Set([`Basic ${btoa("sim:pw")}`]));
    expect(new Set(receiver.contentTypes)).toEqual(new Set(["application/x-protobuf"]));
    const points = receiver.points;
    expect(new Set(points.map((p) => p.metric))).toEqual(
      new Set([trafficSeries.egress.otlp, trafficSeries.ingress.otlp]),
    );
    for (const p of points) {
      expect({
        unit: p.unit,
        monotonic: p.monotonic,
        temporality: p.temporality,
        cloud: p.attributes.cloud,
      }).toEqual({
        unit: "By",
        monotonic: true,
        temporality: 2,
        cloud: "cloud-1",
      });
      // A grid instant, or the instance's end.
      const onGrid = (p.atMs - from) % (6 * hour) === 0;
      const atEnd = oracle.traffic.some(
        (t) => t.resource_id === p.attributes.resource_id && Date.parse(t.to) === p.atMs,
      );
      expect(onGrid || atEnd).toBe(true);
    }
    // The last point of each instance holds all the traffic the oracle states for it.
    for (const [direction, member] of [
      ["egress", "egress_bytes"],
      ["ingress", "ingress_bytes"],
    ] as const) {
      const last = new Map<string, { at: number; value: number }>();
      for (const p of points.filter((x) => x.metric === trafficSeries[direction].otlp)) {
        const id = p.attributes.resource_id as string;
        if ((last.get(id)?.at ?? -1) < p.atMs) last.set(id, { at: p.atMs, value: p.value });
      }
      const totals = new Map<string, number>();
      for (const t of oracle.traffic) totals.set(t.resource_id, (totals.get(t.resource_id) ?? 0) + t[member]);
      expect(new Map([...last].map(([id, v]) => [id, v.value]))).toEqual(totals);
    }
  });

  test("on a running clock only the grid the clock has passed is pushed; a stop pushes nothing more", async () => {
    receiver.points.length = 0;
    const clock = new VirtualClock(from, 0);
    const stop = new AbortController();
    const pusher = push();
    const running = pushTrafficOnClock({
      counters: new TrafficCounters(month),
      push: pusher,
      clock,
      gridMs: 6 * hour,
      fromMs: from,
      toMs: to,
      signal: stop.signal,
      finished: new AbortController().signal,
    });
    clock.advanceTo(from + 13 * hour);
    const deadline = performance.now() + 5000;
    while (new Set(receiver.points.map((p) => p.atMs)).size < 2 && performance.now() < deadline)
      await Bun.sleep(20);
    stop.abort();
    await running;
    await pusher.shutdown();
    expect(Math.max(...receiver.points.map((p) => p.atMs))).toBe(from + 12 * hour);
  });
});
