import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { adjustmentTypes, pricingAdjustmentErrors } from "./pricing-adjustments.ts";

const at = "body.metadata.pricing_adjustments";

const rate = fc.oneof(
  fc.constant("0"),
  fc.constant("1"),
  fc.integer({ min: 1, max: 6 }).map((n) => `1.${"0".repeat(n)}`),
  fc
    .tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 999_999 }))
    .map(([places, n]) => `0.${String(n).padStart(6, "0").slice(0, places)}`),
);
const scope = fc.oneof(
  fc.constant("all"),
  fc.stringMatching(/^[a-z0-9_]{1,12}$/),
  fc.stringMatching(/^[a-z0-9_]{1,12}\.[a-z0-9_]{1,12}$/),
);
const adjustment = fc.record(
  {
    type: fc.constantFrom(...adjustmentTypes),
    rate,
    scope,
    description: fc.string({ maxLength: 500 }),
  },
  { requiredKeys: ["type", "rate", "scope"] },
);

describe("pricing_adjustments", () => {
  test("any array of 1 to 64 well-formed adjustments is accepted", () => {
    fc.assert(
      fc.property(fc.array(adjustment, { minLength: 1, maxLength: 64 }), (value) => {
        expect(pricingAdjustmentErrors(value, at)).toEqual([]);
      }),
    );
  });

  test("one broken member of one element is exactly one error at <index>.<member>", () => {
    const breaks: [string, unknown][] = [
      ["type", "rebate"],
      ["type", 1],
      ["rate", "1.5"],
      ["rate", "0.1234567"],
      ["rate", 0.5],
      ["rate", ".5"],
      ["scope", "All"],
      ["scope", "a.b.c"],
      ["description", "x".repeat(501)],
      ["description", 5],
      ["extra", true],
    ];
    fc.assert(
      fc.property(
        fc.array(adjustment, { minLength: 1, maxLength: 64 }),
        fc.nat(),
        fc.constantFrom(...breaks),
        (value, pick, [member, bad]) => {
          const index = pick % value.length;
          const broken = value.map((e, i) => (i === index ? { ...e, [member]: bad } : e));
          expect(pricingAdjustmentErrors(broken, at).map((e) => e.loc)).toEqual([`${at}.${index}.${member}`]);
        },
      ),
    );
  });

  test("a missing required member is named; several violations are all reported", () => {
    expect(pricingAdjustmentErrors([{ rate: "2" }, "x"], at)).toEqual([
      { loc: `${at}.0.type`, msg: "is required" },
      { loc: `${at}.0.rate`, msg: "must be a decimal string from 0 to 1 with at most 6 places" },
      { loc: `${at}.0.scope`, msg: "is required" },
      { loc: `${at}.1`, msg: "must be an object with type, rate, scope and an optional description" },
    ]);
  });

  test("array-level refusals: not an array, empty, and 65 elements as one violation naming the length", () => {
    expect(pricingAdjustmentErrors({}, at)).toEqual([
      { loc: at, msg: "must be an array of 1 to 64 adjustments" },
    ]);
    expect(pricingAdjustmentErrors([], at)).toEqual([{ loc: at, msg: "must hold at least 1 adjustment" }]);
    const many = Array.from({ length: 65 }, () => ({ type: "discount", rate: "0.1", scope: "all" }));
    expect(pricingAdjustmentErrors(many, at)).toEqual([
      { loc: at, msg: "holds 65 adjustments; at most 64 are allowed" },
    ]);
  });
});
