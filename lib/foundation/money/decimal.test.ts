import { describe, expect, test } from "bun:test";
import Big from "big.js";
import fc from "fast-check";
import {
  amountOf,
  apportion,
  decimal,
  formatMoney,
  formatRate,
  percentOf,
  quantityOf,
  sum,
  type Usage,
  usageDecimal,
  usageProduct,
  usageSum,
} from "./decimal.ts";

describe("one rounding, half up, to cents", () => {
  test("the exact quotient is rounded once", () => {
    expect(formatMoney(amountOf(decimal("1"), decimal("3")))).toBe("0.33");
    expect(formatMoney(amountOf(decimal("2"), decimal("3")))).toBe("0.67");
    expect(formatMoney(amountOf(decimal("0.005"), decimal("1")))).toBe("0.01");
    expect(formatMoney(amountOf(decimal("-0.005"), decimal("1")))).toBe("-0.01");
    // 0.0049999… must not round twice into 0.01.
    expect(formatMoney(amountOf(decimal("44999999"), decimal("9000000000")))).toBe("0.00");
  });

  test("an adjustment line: rate times base, rounded once", () => {
    expect(formatMoney(percentOf(decimal("0.125"), decimal("10.04")))).toBe("1.26");
    expect(formatMoney(percentOf(decimal("0.1"), decimal("0.05")))).toBe("0.01");
    expect(formatRate(decimal("0.1"))).toBe("0.100000");
  });

  test("quantities keep six places", () => {
    expect(quantityOf(decimal("1"), decimal("3600000")).toFixed(6)).toBe("0.000000");
    expect(quantityOf(decimal("5400000"), decimal("3600000")).toFixed(6)).toBe("1.500000");
  });

  test("plain decimals only", () => {
    for (const bad of ["", "1e3", "+1", " 1", "1.", ".5", "NaN"])
      expect(() => decimal(bad)).toThrow(RangeError);
  });
});

describe("apportion", () => {
  test("every bucket but the last takes its rounded share; the last the remainder", () => {
    const shares = apportion(decimal("-10.00"), [decimal("1"), decimal("1"), decimal("1")]);
    expect(shares.map(formatMoney)).toEqual(["-3.33", "-3.33", "-3.34"]);
    expect(apportion(decimal("5.00"), [decimal("0"), decimal("0")]).map(formatMoney)).toEqual([
      "0.00",
      "5.00",
    ]);
    expect(apportion(decimal("5.00"), [])).toEqual([]);
  });

  const cents = fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => decimal((n / 100).toFixed(2)));
  const weight = fc.integer({ min: 0, max: 100_000_000 }).map((n) => decimal((n / 100).toFixed(2)));

  test("property: shares sum to the line exactly and each has at most two places", () => {
    fc.assert(
      fc.property(cents, fc.array(weight, { minLength: 1, maxLength: 12 }), (line, weights) => {
        const shares = apportion(line, weights);
        expect(shares).toHaveLength(weights.length);
        expect(formatMoney(sum(shares))).toBe(formatMoney(line));
        for (const s of shares) expect(s.eq(s.round(2))).toBe(true);
      }),
    );
  });

  test("property: with positive weights and a positive line no share is negative but the last may absorb rounding", () => {
    fc.assert(
      fc.property(
        cents.filter((c) => c.gt(0)),
        fc.array(
          weight.filter((w) => w.gt(0)),
          { minLength: 1, maxLength: 8 },
        ),
        (line, weights) => {
          const shares = apportion(line, weights);
          for (const s of shares.slice(0, -1)) expect(s.gte(0)).toBe(true);
          // The remainder differs from its exact share by less than a cent per bucket.
          const exactLast = line
            .times(weights[weights.length - 1] as ReturnType<typeof decimal>)
            .div(sum(weights));
          expect(
            shares[shares.length - 1]?.minus(exactLast).abs().lte(decimal("0.01").times(weights.length)),
          ).toBe(true);
        },
      ),
    );
  });
});

describe("usage summed as safe integers while it can be", () => {
  // Integers around a month of milliseconds times a size, up to past the safe range, and decimals.
  const term = fc.oneof(
    fc.integer({ min: 0, max: 3_000_000_000 }),
    fc.constantFrom(0, 1, 2.5, 0.1, 1e-7, 123.456, 2 ** 52, 2 ** 53 + 2, 1e21),
  );

  test("property: products and sums equal the same arithmetic done in decimals throughout", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(term, term), { maxLength: 12 }), (pairs) => {
        let usage: Usage = 0;
        let exact = decimal("0");
        for (const [a, b] of pairs) {
          usage = usageSum(usage, usageProduct(a, b));
          exact = exact.plus(new Big(a).times(new Big(b)));
        }
        expect(usageDecimal(usage).eq(exact)).toBe(true);
        if (typeof usage === "number") expect(Number.isSafeInteger(usage)).toBe(true);
      }),
    );
  });
});
