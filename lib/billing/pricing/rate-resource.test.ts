import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import {
  amountOf,
  decimal,
  formatMoney,
  formatQuantity,
  formatRate,
  zero,
} from "../../foundation/money/decimal.ts";
import { instantFromMs } from "../../foundation/time/instant.ts";
import { readPricingModel } from "./pricing-model.ts";
import { type RatedInterval, type RatedLine, rateResource } from "./rate-resource.ts";

const defaultModel = readPricingModel(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);
const exampleModel = readPricingModel(
  readFileSync(new URL("../../../pricing/example.yaml", import.meta.url), "utf8"),
);

const shown = (lines: readonly RatedLine[]) =>
  lines.map((l) => [
    l.project_id,
    l.dimension,
    formatQuantity(l.quantity),
    formatRate(l.unit_price),
    formatMoney(l.amount),
  ]);
const span = (from: string, to: string, size: RatedInterval["size"], state = "active"): RatedInterval => ({
  from: `2026-10-${from}:00:00.000Z`,
  to: `2026-10-${to}:00:00.000Z`,
  state,
  project_id: "p",
  size,
});

const small = { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" };
const instance = { platform: "platform_a", resource_type: "instance" };

describe("rateResource", () => {
  test("per project and dimension, the states' dimensions, rounded once per line", () => {
    const rating = rateResource(defaultModel, instance, [
      // 10 h active: 20 vcpu-h, 40 GiB-h ram, 400 GiB-h disk, 3 GiB egress
      { ...span("01T00", "01T10", small), project_id: "p1", counters: { egress_gb: 3 * 2 ** 30 } },
      // 5 h shut off: disk only
      { ...span("01T10", "01T15", small, "shutoff"), project_id: "p1", counters: { egress_gb: 0 } },
      // transferred: 1 h active for p2, no egress
      { ...span("01T15", "01T16", small), project_id: "p2", counters: { egress_gb: 0 } },
    ]);
    expect(
      rating.lines.map((l) => [l.project_id, l.dimension, formatQuantity(l.quantity), formatMoney(l.amount)]),
    ).toEqual([
      ["p1", "disk_gb", "600.000000", "0.08"],
      ["p1", "egress_gb", "3.000000", "0.15"],
      ["p1", "ram_gb", "40.000000", "0.17"],
      ["p1", "vcpus", "20.000000", "0.25"],
      ["p2", "disk_gb", "40.000000", "0.01"],
      ["p2", "ram_gb", "4.000000", "0.02"],
      ["p2", "vcpus", "2.000000", "0.03"],
    ]);
    expect(rating.unknownStates).toEqual([]);
  });

  test("unknown states, unreadable members, missing counters and unpriced types are reported", () => {
    const rating = rateResource(defaultModel, instance, [
      span("01T00", "01T01", small, "migrating"),
      span("01T01", "01T02", { vcpus: "2", ram_gb: 4, disk_gb: -1 }),
    ]);
    expect(rating.unknownStates).toEqual(["migrating"]);
    expect(rating.unreadable).toEqual(["vcpus", "disk_gb"]);
    expect(rating.missingCounters).toEqual(["egress_gb"]);
    expect(rating.lines.map((l) => l.dimension)).toEqual(["ram_gb"]);
    const unpriced = rateResource(defaultModel, { platform: "platform_b", resource_type: "instance" }, [
      span("01T00", "01T01", small),
    ]);
    expect(unpriced).toEqual({
      lines: [],
      unpriced: true,
      unknownStates: [],
      unreadable: [],
      missingCounters: [],
    });
  });
});

describe("rateResource: prices by attribute (docs/pricing-model.md#prices-by-attribute)", () => {
  const volume = { platform: "platform_a", resource_type: "volume" };
  const ssdId = "5f3c2a8e-1b7d-4c1e-9a53-0d6f4b2e8c11";

  test("a volume type by its id (named by the model) or its name; an unnamed type at the type's price", () => {
    const at = (size: RatedInterval["size"]) =>
      shown(rateResource(exampleModel, volume, [span("01T00", "01T10", size, "in-use")]).lines);
    expect(at({ size_gb: 100, type: ssdId })).toEqual([["p", "size_gb", "1000.000000", "0.000200", "0.20"]]);
    expect(at({ size_gb: 100, type: "ssd" })).toEqual(at({ size_gb: 100, type: ssdId }));
    expect(at({ size_gb: 100, type: "hdd" })).toEqual([["p", "size_gb", "1000.000000", "0.000060", "0.06"]]);
    expect(at({ size_gb: 100, type: "standard" })).toEqual([
      ["p", "size_gb", "1000.000000", "0.000110", "0.11"],
    ]);
    expect(at({ size_gb: 100 })).toEqual(at({ size_gb: 100, type: "standard" }));
  });

  test("a flavor priced whole bills hours by its own states; another flavor falls back per dimension", () => {
    const instance = { platform: "platform_a", resource_type: "instance" };
    const r1 = { vcpus: 4, ram_gb: 16, disk_gb: 40, flavor: "r1.large" };
    const whole = rateResource(exampleModel, instance, [
      { ...span("01T00", "01T10", r1), counters: { egress_gb: 2 ** 30 } },
      span("01T10", "01T12", r1, "shutoff"),
    ]);
    expect(shown(whole.lines)).toEqual([
      ["p", "disk_gb", "80.000000", "0.000140", "0.01"],
      ["p", "egress_gb", "1.000000", "0.050000", "0.05"],
      ["p", "hours", "10.000000", "0.115000", "1.15"],
    ]);
    const c1 = { vcpus: 8, ram_gb: 8, disk_gb: 60, flavor: "c1.large" };
    const parts = rateResource(exampleModel, instance, [
      { ...span("01T00", "01T10", c1), counters: { egress_gb: 0 } },
    ]);
    expect(shown(parts.lines)).toEqual([
      ["p", "disk_gb", "600.000000", "0.000140", "0.08"],
      ["p", "ram_gb", "80.000000", "0.004200", "0.34"],
      ["p", "vcpus", "80.000000", "0.011000", "0.88"],
    ]);
  });

  test("a retype within the month: one line at the average price, its amount rounded once", () => {
    const rating = rateResource(exampleModel, volume, [
      span("02T00", "02T07", { size_gb: 10, type: "hdd" }, "in-use"),
      span("02T07", "02T10", { size_gb: 10, type: "ssd" }, "in-use"),
    ]);
    // 70 GiB-h × 0.00006 + 30 GiB-h × 0.0002 = 0.0042 + 0.006 = 0.0102, once: 0.01
    expect(shown(rating.lines)).toEqual([["p", "size_gb", "100.000000", "0.000102", "0.01"]]);
    expect(rating.lines[0]?.priced.div(3_600_000).toFixed()).toBe("0.0102");
  });
});

describe("rateResource: price changes (docs/pricing-model.md#price-changes)", () => {
  const volume = { platform: "platform_a", resource_type: "volume" };

  test("an interval across the change is split at the instant, not at the day", () => {
    const rating = rateResource(exampleModel, volume, [
      span("15T18", "16T06", { size_gb: 1000, type: "ssd" }, "in-use"),
    ]);
    // 6 h × 1000 GiB at 0.0002, then 6 h at 0.00022: 1.20 + 1.32
    expect(shown(rating.lines)).toEqual([["p", "size_gb", "12000.000000", "0.000210", "2.52"]]);
  });

  test("an interval with counters may not cross a change: the engine splits before it reads them", () => {
    const instance = { platform: "platform_a", resource_type: "instance" };
    const size = { vcpus: 1, ram_gb: 1, disk_gb: 1, flavor: "m1.small" };
    expect(() =>
      rateResource(exampleModel, instance, [{ ...span("15T18", "16T06", size), counters: { egress_gb: 1 } }]),
    ).toThrow("crosses the price change at 2026-10-16T00:00:00.000Z");
  });

  test("property: a month across a change bills what its two halves bill at their own prices", () => {
    const before = readPricingModel(`format: 1
name: before
currency: EUR
platforms:
  platform_a:
    volume: { prices: { size_gb: "0.00011" }, states: { in-use: [size_gb] } }
`);
    const after = readPricingModel(before.text.replace('"0.00011"', '"0.00023"').replace("before", "after"));
    const changing = readPricingModel(`${before.text.replace("before", "changing")}changes:
  - from: "2026-10-16T00:00:00Z"
    platforms: { platform_a: { volume: { prices: { size_gb: "0.00023" } } } }
`);
    const change = Date.parse("2026-10-16T00:00:00Z");
    const start = Date.parse("2026-10-01T00:00:00Z");
    const end = Date.parse("2026-11-01T00:00:00Z");
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: start + 1, max: end - 1 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 9, maxLength: 9 }),
        (cuts, sizes) => {
          const bounds = [start, ...cuts.sort((a, b) => a - b), end];
          const intervals = bounds.slice(1).map((to, i) => ({
            from: instantFromMs(bounds[i] as number),
            to: instantFromMs(to),
            state: "in-use",
            project_id: "p",
            size: { size_gb: sizes[i] as number },
          }));
          const halves = (ms: (i: RatedInterval) => [number, number]) =>
            intervals
              .map((i) => {
                const [f, t] = ms(i);
                return { ...i, from: instantFromMs(f), to: instantFromMs(t) };
              })
              .filter((i) => i.from < i.to);
          const first = halves((i) => [Date.parse(i.from), Math.min(Date.parse(i.to), change)]);
          const second = halves((i) => [Math.max(Date.parse(i.from), change), Date.parse(i.to)]);
          const whole = rateResource(changing, volume, intervals).lines[0];
          const a = rateResource(before, volume, first).lines[0];
          const b = rateResource(after, volume, second).lines[0];
          const priced = [a, b].reduce((sum, l) => (l === undefined ? sum : sum.plus(l.priced)), zero);
          expect(whole?.priced.toFixed()).toBe(priced.toFixed());
          expect(whole?.amount.toFixed()).toBe(amountOf(priced, decimal("3600000")).toFixed());
        },
      ),
    );
  });
});
