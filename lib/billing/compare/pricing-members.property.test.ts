import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { decimal, formatMoney } from "../../foundation/money/decimal.ts";
import { instantFromMs } from "../../foundation/time/instant.ts";
import { applyPlan } from "../pricing/plan-lines.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { rateResource } from "../pricing/rate-resource.ts";
import { exactOf, scaledText } from "../simulator/oracle-bill/exact.ts";
import { applyOraclePlan } from "../simulator/oracle-bill/oracle-plans.ts";
import { readOraclePrices } from "../simulator/oracle-bill/oracle-prices.ts";
import { rateOracleResource } from "../simulator/oracle-bill/oracle-rating.ts";

/**
 * The engine's pricing and the oracle's, written apart (decision 454, 297), agree on random resources
 * priced by pricing/example.yaml: prices by attribute, a flavor priced whole, intervals across the price
 * change; and on random statements under its plans: tier lines and top-ups to the cent.
 */
const text = readFileSync(new URL("../../../pricing/example.yaml", import.meta.url), "utf8");
const model = readPricingModel(text);
const prices = readOraclePrices(text);
const monthFrom = Date.parse("2026-10-01T00:00:00.000Z");
const monthTo = Date.parse("2026-11-01T00:00:00.000Z");

const sizes: Record<string, fc.Arbitrary<Record<string, string | number>>> = {
  instance: fc.record({
    flavor: fc.constantFrom("m1.small", "c1.large", "r1.large", "x9.unknown"),
    vcpus: fc.integer({ min: 1, max: 16 }),
    ram_gb: fc.constantFrom(0.5, 2, 16),
    disk_gb: fc.integer({ min: 0, max: 200 }),
  }),
  volume: fc.record({
    type: fc.constantFrom("5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11", "ssd", "hdd", "standard", "c7b2f5d1"),
    size_gb: fc.integer({ min: 1, max: 2000 }),
  }),
  image: fc.record({
    disk_format: fc.constantFrom("raw", "qcow2"),
    size_gb: fc.double({ min: 0.1, max: 50, noNaN: true }),
  }),
  loadbalancer: fc.record(
    {
      flavor: fc.constantFrom("7d3b1c9e-2f4a-4e6b-8c1d-5a9e0f3b2c44", "2b8e4f1a-9c3d-4a7e-b5f2-8d1c6e0a3f55"),
      listeners: fc.integer({ min: 0, max: 4 }),
      pools: fc.integer({ min: 0, max: 4 }),
    },
    { requiredKeys: ["listeners", "pools"] },
  ),
};
const states: Record<string, string[]> = {
  instance: ["active", "shutoff", "paused", "unknown_state"],
  volume: ["in-use", "available", "creating"],
  image: ["active", "queued"],
  loadbalancer: ["active", "pending_create"],
};

/** A resource's life: consecutive intervals inside the month, each its own state, owner and size. */
const resource = fc.constantFrom("instance", "volume", "image", "loadbalancer").chain((type) =>
  fc.record({
    type: fc.constant(type),
    cuts: fc.uniqueArray(fc.integer({ min: monthFrom, max: monthTo }), { minLength: 2, maxLength: 6 }),
    spans: fc.array(
      fc.record({
        state: fc.constantFrom(...(states[type] as string[])),
        project: fc.constantFrom("p1", "p2"),
        size: sizes[type] as fc.Arbitrary<Record<string, string | number>>,
      }),
      { minLength: 5, maxLength: 5 },
    ),
  }),
);

describe("the engine's pricing and the oracle's agree (issue 34)", () => {
  test("on random resources across the price change, by attribute, a flavor priced whole among them", () => {
    fc.assert(
      fc.property(resource, ({ type, cuts, spans }) => {
        const at = [...cuts].sort((a, b) => a - b);
        const intervals = at.slice(1).map((to, i) => ({
          from: instantFromMs(at[i] as number),
          to: instantFromMs(to),
          state: (spans[i] ?? spans[0])?.state ?? "active",
          project_id: (spans[i] ?? spans[0])?.project ?? "p1",
          size: (spans[i] ?? spans[0])?.size ?? {},
        }));
        const engine = rateResource(model, { platform: "platform_a", resource_type: type }, intervals);
        const oracle = rateOracleResource(
          prices,
          "platform_a",
          { resource_type: type, resource_id: "r", workload: "w", intervals, faults: [] },
          new Map(),
        );
        expect(
          oracle.lines.map((l) => `${l.project_id} ${l.dimension} ${l.quantity} ${scaledText(l.amount, 2)}`),
        ).toEqual(
          engine.lines.map(
            (l) => `${l.project_id} ${l.dimension} ${l.quantity.toFixed(6)} ${formatMoney(l.amount)}`,
          ),
        );
      }),
      { numRuns: 300 },
    );
  });

  test("on random statements under the example's plans: tier lines and top-ups to the cent", () => {
    const usage = fc.record({
      vcpuHours: fc.integer({ min: 0, max: 30_000_000 }).map((n) => n / 1000),
      listPrice: fc.constantFrom("0.0125", "0.0110", "0.0135"),
      gibHours: fc.integer({ min: 0, max: 1_000_000 }),
      instance: fc.integer({ min: 0, max: 40_000 }),
      volume: fc.integer({ min: 0, max: 20_000 }),
    });
    fc.assert(
      fc.property(usage, fc.constantFrom(...model.plans.map((p) => p.name)), (u, planName) => {
        const plan = model.plans.find((p) => p.name === planName);
        const oraclePlan = prices.plans.find((p) => p.name === planName);
        if (plan === undefined || oraclePlan === undefined) throw new Error(planName);
        const vcpus = decimal(String(u.vcpuHours)).times(3_600_000);
        const gib = decimal(String(u.gibHours)).times(3_600_000);
        const rows = [
          {
            resource_type: "instance",
            dimension: "vcpus",
            numerator: vcpus,
            priced: vcpus.times(u.listPrice),
          },
          { resource_type: "volume", dimension: "size_gb", numerator: gib, priced: gib.times("0.00011") },
        ];
        const cents = [
          { resource_type: "instance", cents: u.instance },
          { resource_type: "volume", cents: u.volume },
        ];
        const engine = applyPlan(
          plan,
          rows.map((r) => ({ platform: "platform_a", ...r })),
          cents.map((c) => ({
            platform: "platform_a",
            resource_type: c.resource_type,
            amount: decimal(String(c.cents)).div(100),
          })),
        );
        const buckets = cents.map((c) => ({
          platform: "platform_a",
          resource_type: c.resource_type,
          amount: BigInt(c.cents),
        }));
        const oracle = applyOraclePlan(
          oraclePlan,
          rows.map((r) => ({
            platform: "platform_a",
            resource_type: r.resource_type,
            dimension: r.dimension,
            usage: exactOf(r.numerator.toFixed()),
            priced: exactOf(r.priced.toFixed()),
            unit: exactOf("3600000"),
          })),
          buckets,
        );
        expect(oracle.tiers.map((t) => `${t.dimension} ${t.quantity} ${scaledText(t.amount, 2)}`)).toEqual(
          engine.lines.tiers.map((t) => `${t.dimension} ${t.quantity.toFixed(6)} ${formatMoney(t.amount)}`),
        );
        expect(
          oracle.minimums.map((m) => `${m.scope} ${scaledText(m.usage, 2)} ${scaledText(m.amount, 2)}`),
        ).toEqual(
          engine.lines.minimums.map((m) => `${m.scope} ${formatMoney(m.usage)} ${formatMoney(m.amount)}`),
        );
        expect(buckets.map((b) => `${b.resource_type} ${scaledText(b.amount, 2)}`).sort()).toEqual(
          engine.buckets.map((b) => `${b.resource_type} ${formatMoney(b.amount)}`).sort(),
        );
      }),
      { numRuns: 300 },
    );
  });
});
