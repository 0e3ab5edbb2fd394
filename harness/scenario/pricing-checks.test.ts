import { describe, expect, test } from "bun:test";
import { type BillFindings, noFindings } from "../../lib/billing/simulator/oracle-bill/oracle-bill.ts";
import { type PricingSeen, pricingChecks } from "./pricing-checks.ts";

const findings: BillFindings = {
  ...noFindings(),
  pricedByValue: 120,
  namedValues: 80,
  wholeFlavorLines: 3,
  splitIntervals: 40,
  tierLines: 2,
  tiersCrossed: 2,
  minimums: 3,
  topUps: 2,
  deepestLevel: 1,
};

const seen: PricingSeen = {
  findings,
  plans: [
    {
      statement: "cloud-1/aaaa",
      tiers: [{ dimension: "platform_a.instance.vcpus", reached: 2, amount: "-12.30" }],
      minimums: [],
    },
    {
      statement: "cloud-1/cccc",
      tiers: [],
      minimums: [
        { scope: "platform_a.instance", amount: "800.00" },
        { scope: "platform_a", amount: "300.00" },
      ],
    },
    { statement: "cloud-1/ffff", tiers: [], minimums: [{ scope: "platform_a", amount: "0.00" }] },
  ],
};
const notes = [{ cloud: "cloud-1", project_id: "aaaa", total: "-0.42" }];

describe("the pricing scenario's checks (decision 545)", () => {
  test("a month that met every case passes each check, naming what it counted", () => {
    const checks = pricingChecks(seen, notes);
    expect(checks.map((c) => c.status)).toEqual(["pass", "pass", "pass", "pass", "pass"]);
    expect(checks.map((c) => c.text)).toEqual([
      "prices chosen by attribute: 120 intervals priced by a value's prices, 80 of them named through the model's names; 3 lines of a flavor priced whole",
      "the price change cut 40 intervals at its instant",
      "tiers: 2 tier lines on 1 statements, 2 past a tier's bound (platform_a.instance.vcpus tier 3 -12.30)",
      "minimums: 2 top-ups billed (platform_a.instance 800.00, platform_a 300.00), 1 minimums met without one",
      "the correction moved 1 statements under a plan (aaaa -0.42)",
    ]);
  });

  describe("a seed that misses a case fails, saying which", () => {
    test("a tiered statement that stayed in its first tier", () => {
      const flat = {
        ...seen,
        plans: [
          {
            ...seen.plans[0],
            statement: "cloud-1/aaaa",
            minimums: [],
            tiers: [{ dimension: "d", reached: 0, amount: "0.00" }],
          },
          ...seen.plans.slice(1),
        ],
      };
      expect(pricingChecks(flat, notes)[2]?.details).toEqual(["cloud-1/aaaa stayed inside its first tiers"]);
    });

    test("no price change met, no minimum met, no note on a planned statement", () => {
      const checks = pricingChecks(
        {
          findings: { ...findings, splitIntervals: 0 },
          plans: seen.plans.filter((p) => p.statement !== "cloud-1/ffff"),
        },
        [{ cloud: "cloud-1", project_id: "other", total: "1.00" }],
      );
      expect(checks.filter((c) => c.status === "fail").map((c) => c.details)).toEqual([
        ["no interval spanned the change: the month is not the model's (2026-10)"],
        ["every minimum billed a top-up: none was met"],
        ["no credit note moved a statement under a plan: no late event crossed a plan's terms"],
      ]);
    });

    test("no value named, no flavor priced whole", () => {
      const checks = pricingChecks(
        { ...seen, findings: { ...findings, namedValues: 0, wholeFlavorLines: 0 } },
        undefined,
      );
      expect(checks.length).toBe(4);
      expect(checks[0]?.details).toEqual([
        "no value was named through names (a volume type by its id)",
        "no flavor priced whole billed an hour",
      ]);
    });
  });
});
