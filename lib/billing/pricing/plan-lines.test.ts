import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  type Decimal,
  decimal,
  formatMoney,
  formatQuantity,
  sum,
  zero,
} from "../../foundation/money/decimal.ts";
import { applyPlan, type DimensionUsage, priceTiers, type TypeCost } from "./plan-lines.ts";
import type { Plan, Tier, TierSchedule } from "./plans.ts";

const msPerHour = decimal("3600000");
const hours = (n: string) => decimal(n).times(msPerHour);
const tier = (upTo: string | null, price: string): Tier => ({
  up_to: upTo === null ? null : decimal(upTo),
  price: decimal(price),
});
const vcpus = (mode: TierSchedule["mode"], tiers: Tier[]): TierSchedule => ({
  platform: "platform_a",
  resource_type: "instance",
  dimension: "vcpus",
  mode,
  tiers,
});
const plan = (parts: Partial<Plan>): Plan => ({
  name: "p",
  projects: new Map(),
  tiered: [],
  minimums: [],
  ...parts,
});
const usage = (numerator: Decimal, priced: Decimal): DimensionUsage => ({
  platform: "platform_a",
  resource_type: "instance",
  dimension: "vcpus",
  numerator,
  priced,
});
const cost = (resourceType: string, amount: string): TypeCost => ({
  platform: "platform_a",
  resource_type: resourceType,
  amount: decimal(amount),
});

const schedule = [tier("2000", "0.0125"), tier("10000", "0.0100"), tier(null, "0.0080")];

describe("priceTiers", () => {
  test("graduated: each band's share at its price (the worked example of docs/pricing-model.md#tiers)", () => {
    const { priced, bands } = priceTiers(vcpus("graduated", schedule), hours("12345.5"), msPerHour);
    expect(
      bands.map((b) => [b.up_to?.toFixed() ?? null, formatQuantity(b.quantity), b.unit_price.toFixed()]),
    ).toEqual([
      ["2000", "2000.000000", "0.0125"],
      ["10000", "8000.000000", "0.01"],
      [null, "2345.500000", "0.008"],
    ]);
    // 25.00 + 80.00 + 18.764 = 123.764
    expect(priced.div(msPerHour).toFixed()).toBe("123.764");
  });

  test("volume: the whole quantity at the band it reaches; a quantity on a bound stays in that band", () => {
    const at = (n: string) => priceTiers(vcpus("volume", schedule), hours(n), msPerHour);
    expect(at("2000").priced.div(msPerHour).toFixed()).toBe("25");
    expect(at("2000.5").priced.div(msPerHour).toFixed()).toBe("20.005");
    expect(at("12345.5").priced.div(msPerHour).toFixed()).toBe("98.764");
    expect(at("12345.5").bands.map((b) => formatQuantity(b.quantity))).toEqual(["12345.500000"]);
  });

  test("property: one tier, or bands all at one price, sum to the untiered price of the quantity", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.integer({ min: 0, max: 99_999 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 50_000 }), { maxLength: 4 }),
        fc.constantFrom<TierSchedule["mode"]>("graduated", "volume"),
        (n, cents, bounds, mode) => {
          const numerator = decimal(n.toString());
          const price = decimal((cents / 1e6).toFixed(6));
          const untiered = numerator.times(price).toFixed();
          expect(
            priceTiers(vcpus(mode, [tier(null, price.toFixed())]), numerator, msPerHour).priced.toFixed(),
          ).toBe(untiered);
          const same = [
            ...bounds.sort((a, b) => a - b).map((b) => tier(String(b), price.toFixed())),
            tier(null, price.toFixed()),
          ];
          expect(priceTiers(vcpus(mode, same), numerator, msPerHour).priced.toFixed()).toBe(untiered);
        },
      ),
    );
  });

  test("property: graduated bands take the whole quantity, once", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 13n }), (n) => {
        const numerator = decimal(n.toString());
        const { bands } = priceTiers(vcpus("graduated", schedule), numerator, msPerHour);
        expect(
          sum(bands.map((b) => b.quantity))
            .minus(numerator.div(msPerHour))
            .abs()
            .lte(decimal("0.000003")),
        ).toBe(true);
      }),
    );
  });
});

describe("applyPlan: tier lines", () => {
  test("the tier line is the tiers' price less the list price of the same usage, rounded once", () => {
    // 12,345.5 vcpu-hours rated at 0.0125: 154.31875 at list; tiers 123.764: −30.55475 → −30.55
    const used = usage(hours("12345.5"), hours("12345.5").times(decimal("0.0125")));
    const { lines, buckets } = applyPlan(
      plan({ tiered: [vcpus("graduated", schedule)] }),
      [used],
      [cost("instance", "154.32")],
    );
    expect(lines.tiers.map((t) => [t.dimension, formatQuantity(t.quantity), formatMoney(t.amount)])).toEqual([
      ["vcpus", "12345.500000", "-30.55"],
    ]);
    expect(buckets.map((b) => [b.resource_type, formatMoney(b.amount)])).toEqual([["instance", "123.77"]]);
  });

  test("property: a schedule that repeats the list price bills exactly what the lines bill", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: 1n, max: 10n ** 12n }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 99_999 }),
        (numerators, micros) => {
          const price = (micros / 1e6).toFixed(6);
          const ns = numerators.map((n) => decimal(n.toString()));
          const numerator = sum(ns);
          const listed = sum(ns.map((n) => n.times(decimal(price)).div(msPerHour).round(2, 1)));
          const { lines, buckets } = applyPlan(
            plan({ tiered: [vcpus("graduated", [tier("1000", price), tier(null, price)])] }),
            [usage(numerator, numerator.times(decimal(price)))],
            [{ platform: "platform_a", resource_type: "instance", amount: listed }],
          );
          expect(formatMoney(lines.tiers[0]?.amount ?? zero)).toBe("0.00");
          expect(formatMoney(buckets[0]?.amount ?? zero)).toBe(formatMoney(listed));
        },
      ),
    );
  });
});

describe("applyPlan: minimums", () => {
  test("a type's top-up, then the platform's, whose usage counts it; a met minimum shows and adds nothing", () => {
    const { lines, buckets } = applyPlan(
      plan({
        minimums: [
          { scope: "platform_a", platform: "platform_a", resource_type: null, amount: decimal("250") },
          {
            scope: "platform_a.instance",
            platform: "platform_a",
            resource_type: "instance",
            amount: decimal("150"),
          },
          {
            scope: "platform_a.volume",
            platform: "platform_a",
            resource_type: "volume",
            amount: decimal("5"),
          },
        ],
      }),
      [],
      [cost("instance", "90.50"), cost("volume", "12.25")],
    );
    expect(lines.minimums.map((m) => [m.scope, formatMoney(m.usage), formatMoney(m.amount)])).toEqual([
      ["platform_a.instance", "90.50", "59.50"],
      ["platform_a.volume", "12.25", "0.00"],
      ["platform_a", "162.25", "87.75"],
    ]);
    expect(buckets.map((b) => [b.resource_type, formatMoney(b.amount)])).toEqual([
      ["instance", "150.00"],
      ["volume", "12.25"],
      ["commitment", "87.75"],
    ]);
  });

  test("a project with no usage at all is billed its minimums", () => {
    const { buckets } = applyPlan(
      plan({
        minimums: [
          {
            scope: "platform_a.volume",
            platform: "platform_a",
            resource_type: "volume",
            amount: decimal("5"),
          },
        ],
      }),
      [],
      [],
    );
    expect(buckets.map((b) => [b.resource_type, formatMoney(b.amount)])).toEqual([["volume", "5.00"]]);
  });

  test("property: a minimum never lowers a bill, and lifts it to the minimum at least", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000_00 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 20_000_00 }),
        fc.integer({ min: 0, max: 5_000_00 }),
        (amounts, total, typed) => {
          const types = ["instance", "volume", "image", "floating_ip"];
          const before = amounts.map((a, i) => cost(types[i] as string, (a / 100).toFixed(2)));
          const { buckets } = applyPlan(
            plan({
              minimums: [
                {
                  scope: "platform_a",
                  platform: "platform_a",
                  resource_type: null,
                  amount: decimal((total / 100).toFixed(2)),
                },
                {
                  scope: "platform_a.volume",
                  platform: "platform_a",
                  resource_type: "volume",
                  amount: decimal((typed / 100).toFixed(2)),
                },
              ],
            }),
            [],
            before,
          );
          const was = sum(before.map((b) => b.amount));
          const is = sum(buckets.map((b) => b.amount));
          expect(is.gte(was)).toBe(true);
          expect(is.gte(decimal((total / 100).toFixed(2)))).toBe(true);
          for (const b of before) {
            const after = buckets.find((x) => x.resource_type === b.resource_type);
            expect(after?.amount.gte(b.amount)).toBe(true);
          }
        },
      ),
    );
  });
});
