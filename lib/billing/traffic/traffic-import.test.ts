import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { counterIncrease } from "../metering/counter-increase.ts";
import { trafficImportSeries } from "./traffic-import.ts";

const at = (h: number) => new Date(Date.UTC(2026, 9, 1) + h * 3_600_000).toISOString();

describe("trafficImportSeries", () => {
  test("one cumulative series per instance and direction, a sample at every boundary, flat across a gap", () => {
    const series = trafficImportSeries("c1", [
      { resource_id: "b", from: at(0), to: at(5), egress_bytes: 7, ingress_bytes: 1 },
      { resource_id: "a", from: at(2), to: at(3), egress_bytes: 100, ingress_bytes: 2 },
      { resource_id: "a", from: at(0), to: at(2), egress_bytes: 50, ingress_bytes: 3 },
      { resource_id: "a", from: at(4), to: at(6), egress_bytes: 0, ingress_bytes: 4 },
    ]);
    expect(series.map((s) => [s.metric.__name__, s.metric.resource_id, s.values])).toEqual([
      ["platform_a_instance_network_egress_bytes_total", "a", [0, 50, 150, 150, 150]],
      ["platform_a_instance_network_ingress_bytes_total", "a", [0, 3, 5, 5, 9]],
      ["platform_a_instance_network_egress_bytes_total", "b", [0, 7]],
      ["platform_a_instance_network_ingress_bytes_total", "b", [0, 1]],
    ]);
    expect(series[0]?.timestamps).toEqual([at(0), at(2), at(3), at(4), at(6)].map(Date.parse));
    expect(series[0]?.metric.cloud).toBe("c1");
  });

  test("property: the counter over each span gives back exactly the span's bytes", () => {
    const spans = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 5 }), fc.nat(2 ** 40)), {
        minLength: 1,
        maxLength: 20,
      })
      .map((parts) => {
        let h = 0;
        return parts.map(([gap, length, bytes]) => {
          const from = h + gap;
          h = from + length;
          return { resource_id: "r", from: at(from), to: at(h), egress_bytes: bytes, ingress_bytes: 0 };
        });
      });
    fc.assert(
      fc.property(spans, (list) => {
        const [egress] = trafficImportSeries("c", list);
        for (const s of list) {
          expect(counterIncrease(egress as never, Date.parse(s.from), Date.parse(s.to))).toBe(s.egress_bytes);
        }
      }),
    );
  });
});
