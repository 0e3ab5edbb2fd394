import { expect, test } from "bun:test";
import fc from "fast-check";
import { parsePeriod } from "../../foundation/time/period.ts";
import { generateMonth } from "./generate-month.ts";
import { buildOracle } from "./oracle.ts";
import { TrafficCounters } from "./traffic-counters.ts";

const period = parsePeriod("2026-10");
const from = Date.parse(period.from);
const to = Date.parse(period.to);

test("sampled anywhere, the counters never fall, and between span ends they move by the oracle's bytes", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 3_600_000, max: 86_400_000 }),
      (seed, grid) => {
        const month = generateMonth({ seed, period, cloud: "c", scale: { tenants: 1 } });
        const oracle = buildOracle(month, [], new Map());
        const counters = new TrafficCounters(month);
        const seen = new Map<string, { egress: number; ingress: number; at: number }>();
        for (let at = from + grid; ; at = Math.min(to, at + grid)) {
          for (const s of counters.samplesBetween(at - grid, at)) {
            const before = seen.get(s.resource_id) ?? { egress: 0, ingress: 0, at: s.start };
            expect(s.egress).toBeGreaterThanOrEqual(before.egress);
            expect(s.ingress).toBeGreaterThanOrEqual(before.ingress);
            expect(s.at).toBeGreaterThan(before.at - 1);
            seen.set(s.resource_id, s);
          }
          if (at === to) break;
        }
        // The last sample of an instance carries all its traffic in the month.
        const totals = new Map<string, { egress: number; ingress: number }>();
        for (const t of oracle.traffic) {
          const sum = totals.get(t.resource_id) ?? { egress: 0, ingress: 0 };
          totals.set(t.resource_id, {
            egress: sum.egress + t.egress_bytes,
            ingress: sum.ingress + t.ingress_bytes,
          });
        }
        expect(new Map([...seen].map(([id, s]) => [id, { egress: s.egress, ingress: s.ingress }]))).toEqual(
          totals,
        );
      },
    ),
    { numRuns: 10 },
  );
}, 30_000);

test("at a span's end the counter holds exactly the bytes of every span so far", () => {
  const month = generateMonth({ seed: 4, period, cloud: "c", scale: { tenants: 2 } });
  const oracle = buildOracle(month, [], new Map());
  const counters = new TrafficCounters(month);
  const running = new Map<string, number>();
  for (const span of oracle.traffic) {
    const end = Date.parse(span.to);
    const total = (running.get(span.resource_id) ?? 0) + span.egress_bytes;
    running.set(span.resource_id, total);
    const sample = counters.samplesBetween(end - 1, end).find((s) => s.resource_id === span.resource_id);
    expect(sample?.egress).toBe(total);
  }
});
