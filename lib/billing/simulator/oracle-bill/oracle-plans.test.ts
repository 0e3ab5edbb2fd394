import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type Exact, exactInteger, exactOf, scaledText, times } from "./exact.ts";
import { applyOraclePlan, type OraclePlan, type OracleSchedule, readOraclePlans } from "./oracle-plans.ts";
import { readOraclePrices } from "./oracle-prices.ts";

const hour = exactInteger(3_600_000n);
const vcpuHours = (text: string): Exact => times(exactOf(text), hour);

const schedule = (mode: OracleSchedule["mode"], tiers: [string | null, string][]): OracleSchedule => ({
  platform: "platform_a",
  resource_type: "instance",
  dimension: "vcpus",
  mode,
  tiers: tiers.map(([upTo, price]) => ({
    upTo: upTo === null ? null : exactOf(upTo),
    price: exactOf(price),
  })),
});

const plan = (terms: Partial<OraclePlan>): OraclePlan => ({
  name: "p",
  statements: new Set(),
  tiered: [],
  minimums: [],
  ...terms,
});

/** A statement's vCPU usage rated at one list price, and its instance bucket as its lines billed it. */
function vcpuStatement(quantity: string, listPrice: string, bucket: bigint) {
  const usage = vcpuHours(quantity);
  return {
    usage: [
      {
        platform: "platform_a",
        resource_type: "instance",
        dimension: "vcpus",
        usage,
        priced: times(usage, exactOf(listPrice)),
        unit: hour,
      },
    ],
    buckets: [{ platform: "platform_a", resource_type: "instance", amount: bucket }],
  };
}

const doc = schedule("graduated", [
  ["2000", "0.0125"],
  ["10000", "0.0100"],
  [null, "0.0080"],
]);

describe("tiers (docs/pricing-model.md#tiers)", () => {
  test("the worked example: graduated −30.55, the instance bucket 123.77; volume −55.55", () => {
    const s = vcpuStatement("12345.5", "0.0125", 15432n);
    const lines = applyOraclePlan(plan({ tiered: [doc] }), s.usage, s.buckets);
    expect(lines.tiers.map((t) => [t.quantity, scaledText(t.amount, 2), t.reached])).toEqual([
      ["12345.500000", "-30.55", 2],
    ]);
    expect(s.buckets).toEqual([{ platform: "platform_a", resource_type: "instance", amount: 12377n }]);
    const v = vcpuStatement("12345.5", "0.0125", 15432n);
    const volume = applyOraclePlan(plan({ tiered: [{ ...doc, mode: "volume" }] }), v.usage, v.buckets);
    expect(volume.tiers.map((t) => scaledText(t.amount, 2))).toEqual(["-55.55"]);
  });

  test("a quantity on a bound belongs to the tier the bound closes", () => {
    const s = vcpuStatement("2000", "0.0125", 2500n);
    const lines = applyOraclePlan(plan({ tiered: [{ ...doc, mode: "volume" }] }), s.usage, s.buckets);
    expect(lines.tiers.map((t) => [scaledText(t.amount, 2), t.reached])).toEqual([["0.00", 0]]);
    const above = vcpuStatement("2000.000001", "0.0125", 2500n);
    const reached = applyOraclePlan(
      plan({ tiered: [{ ...doc, mode: "volume" }] }),
      above.usage,
      above.buckets,
    );
    expect(reached.tiers.map((t) => [scaledText(t.amount, 2), t.reached])).toEqual([["-5.00", 1]]);
  });

  test("one tier at the list price sums to the untiered price: a line of 0.00, in either mode", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.constantFrom("graduated" as const, "volume" as const),
        (ms, mode) => {
          const usage = exactInteger(ms);
          const s = [
            {
              platform: "platform_a",
              resource_type: "instance",
              dimension: "vcpus",
              usage,
              priced: times(usage, exactOf("0.0125")),
              unit: hour,
            },
          ];
          const lines = applyOraclePlan(plan({ tiered: [schedule(mode, [[null, "0.0125"]])] }), s, []);
          expect(lines.tiers.map((t) => t.amount)).toEqual([0n]);
        },
      ),
    );
  });

  test("no usage of the dimension: no tier line", () => {
    const lines = applyOraclePlan(plan({ tiered: [doc] }), [], []);
    expect(lines.tiers).toEqual([]);
  });
});

describe("minimum commitments (docs/pricing-model.md#minimum-commitments)", () => {
  const committed = plan({
    minimums: [
      { scope: "platform_a", platform: "platform_a", resource_type: null, amount: 25000n },
      { scope: "platform_a.instance", platform: "platform_a", resource_type: "instance", amount: 15000n },
    ],
  });

  test("a type's minimum first, in its bucket; the platform's counts that top-up, in the commitment bucket", () => {
    const buckets = [
      { platform: "platform_a", resource_type: "instance", amount: 10000n },
      { platform: "platform_a", resource_type: "volume", amount: 4000n },
    ];
    const lines = applyOraclePlan(committed, [], buckets);
    expect(lines.minimums).toEqual([
      { scope: "platform_a.instance", minimum: 15000n, usage: 10000n, amount: 5000n },
      { scope: "platform_a", minimum: 25000n, usage: 19000n, amount: 6000n },
    ]);
    expect(buckets).toEqual([
      { platform: "platform_a", resource_type: "instance", amount: 15000n },
      { platform: "platform_a", resource_type: "volume", amount: 4000n },
      { platform: "platform_a", resource_type: "commitment", amount: 6000n },
    ]);
  });

  test("a statement that used nothing bills the minimum", () => {
    const buckets: { platform: string; resource_type: string; amount: bigint }[] = [];
    applyOraclePlan(committed, [], buckets);
    expect(buckets.reduce((n, b) => n + b.amount, 0n)).toBe(25000n);
  });

  test("a minimum never lowers a bill: the total is the larger of the usage and the minimum", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 7n }),
        fc.bigInt({ min: 0n, max: 10n ** 7n }),
        (used, minimum) => {
          const buckets = [{ platform: "platform_a", resource_type: "volume", amount: used }];
          applyOraclePlan(
            plan({
              minimums: [
                { scope: "platform_a", platform: "platform_a", resource_type: null, amount: minimum },
              ],
            }),
            [],
            buckets,
          );
          const total = buckets.reduce((n, b) => n + b.amount, 0n);
          // The larger of the two (bigints: Math.max takes numbers).
          expect([total >= used, total >= minimum, total === used || total === minimum]).toEqual([
            true,
            true,
            true,
          ]);
        },
      ),
    );
  });
});

describe("reading plans", () => {
  test("pricing/example.yaml's plans as the oracle reads them", async () => {
    const text = await Bun.file(new URL("../../../../pricing/example.yaml", import.meta.url)).text();
    const plans = readOraclePrices(text).plans;
    expect(
      plans.map((p) => ({
        name: p.name,
        statements: [...p.statements].map((s) => s.replace("\u0000", "/")),
        tiered: p.tiered.map((t) => `${t.resource_type}.${t.dimension} ${t.mode} ${t.tiers.length}`),
        minimums: p.minimums.map((m) => `${m.scope} ${m.amount}`),
      })),
    ).toEqual([
      {
        name: "large-compute",
        statements: ["cloud-1/3b1664cf02de89d363ce351f7ca273d6", "cloud-1/55f32e43c8eb5db85dd5eab09600b131"],
        tiered: ["instance.vcpus graduated 3", "volume.size_gb volume 2"],
        minimums: [],
      },
      {
        name: "committed",
        statements: ["cloud-1/7fe67990fe85b9d5b0b654ae1ccc499b"],
        tiered: [],
        minimums: ["platform_a.instance 15000", "platform_a 25000"],
      },
    ]);
    expect(readOraclePlans(undefined)).toEqual([]);
  });
});
