import Big from "big.js";

/**
 * Money and every other exact quantity of billing (decision 401, docs/decisions/). Amounts are `Big` inside and
 * canonical decimal strings at every boundary; no `number` ever holds money. The scales and the one
 * rounding mode are named here once:
 * - money: 2 places; a rate: 6 places; a displayed quantity: 6 places;
 * - rounding: half up (away from zero on a tie), applied once per line.
 */
export type Decimal = Big;

const moneyPlaces = 2;
const ratePlaces = 6;
const quantityPlaces = 6;

const halfUp = 1 satisfies Big.RoundingMode;

/**
 * A constructor of its own whose division rounds the exact quotient once, to cents, half up: the one
 * rounding of a line (`amountOf`). The shared `Big` keeps its defaults for exact arithmetic.
 */
const Cents = Big();
Cents.DP = moneyPlaces;
Cents.RM = halfUp;

const Quantity = Big();
Quantity.DP = quantityPlaces;
Quantity.RM = halfUp;

const decimalPattern = /^-?\d+(\.\d+)?$/;

export const zero: Decimal = new Big(0);

/** Parses a plain decimal (`12`, `-0.25`); refuses exponents, signs other than `-`, and blanks. */
export function decimal(text: string): Decimal {
  if (!decimalPattern.test(text)) throw new RangeError(`not a plain decimal: ${JSON.stringify(text)}`);
  return new Big(text);
}

/** A JSON number (a size member) as an exact decimal of its shortest representation. */
function decimalOfNumber(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError("not a finite number");
  return new Big(value);
}

/**
 * An exact quantity of usage (unit-milliseconds, bytes) while it is summed: a plain safe integer as long
 * as every term is one and the sum stays in the safe range, a Decimal from the first term or sum that
 * is not. A month's numerators are nearly always integers, and a `Big` made per interval and dimension
 * was most of rating's time (decision 430); both forms are exact, so the sum is the same either way.
 */
export type Usage = number | Decimal;

/** `a × b` exactly: integers in the safe range stay a number, anything else is multiplied as decimals. */
export function usageProduct(a: number, b: number): Usage {
  const product = a * b;
  if (Number.isInteger(a) && Number.isInteger(b) && Number.isSafeInteger(product)) return product;
  return decimalOfNumber(a).times(decimalOfNumber(b));
}

/** `a + b` exactly. */
export function usageSum(a: Usage, b: Usage): Usage {
  if (typeof a === "number" && typeof b === "number") {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return usageDecimal(a).plus(usageDecimal(b));
}

export function usageDecimal(value: Usage): Decimal {
  return typeof value === "number" ? decimalOfNumber(value) : value;
}

/** The exact quotient `numerator / denominator` rounded once to cents: how every line amount is made. */
export function amountOf(numerator: Decimal, denominator: Decimal): Decimal {
  return new Cents(numerator).div(denominator);
}

/** A quotient for display only (quantities in unit-hours or GiB), rounded once to 6 places. */
export function quantityOf(numerator: Decimal, denominator: Decimal): Decimal {
  return new Quantity(numerator).div(denominator);
}

/** `rate × base` rounded once to cents: an adjustment line. */
export function percentOf(rate: Decimal, base: Decimal): Decimal {
  return rate.times(base).round(moneyPlaces, halfUp);
}

export function sum(values: Iterable<Decimal>): Decimal {
  let total = zero;
  for (const v of values) total = total.plus(v);
  return total;
}

/** Canonical text of an amount: always two places (`-3.10`, `0.00`). */
export function formatMoney(value: Decimal): string {
  return value.toFixed(moneyPlaces);
}

export function formatRate(value: Decimal): string {
  return value.toFixed(ratePlaces);
}

export function formatQuantity(value: Decimal): string {
  return value.toFixed(quantityPlaces);
}

/**
 * Splits `line` (already rounded to cents) over buckets in proportion to `weights` (docs/engine.md#adjustments,
 * rule 5): every bucket but the last takes its own share rounded once to
 * cents, the last takes the remainder, so the shares sum to the line exactly. With no weight at all the
 * last bucket takes the whole line.
 */
export function apportion(line: Decimal, weights: readonly Decimal[]): Decimal[] {
  if (weights.length === 0) return [];
  const total = sum(weights);
  const shares: Decimal[] = [];
  let given = zero;
  for (let i = 0; i < weights.length - 1; i++) {
    const share = total.eq(0) ? zero : amountOf(line.times(weights[i] as Decimal), total);
    shares.push(share);
    given = given.plus(share);
  }
  shares.push(line.minus(given));
  return shares;
}
