/**
 * Exact rationals over BigInt: how the oracle's bill computes money (decision 454). The engine counts
 * with big.js decimals and one rounding per line (`lib/foundation/money/decimal.ts`); the oracle keeps
 * every figure an exact fraction and rounds only where a figure is stated, in its own code, so that a
 * disagreement between the two is a finding and not a shared mistake.
 */
export interface Exact {
  /** Numerator, signed. */
  n: bigint;
  /** Denominator, positive. */
  d: bigint;
}

export const zeroExact: Exact = { n: 0n, d: 1n };

const decimalText = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A decimal's text (`12`, `-0.25`, `1e-7` as a JSON number prints it) as an exact fraction. */
export function exactOf(text: string): Exact {
  const m = decimalText.exec(text);
  if (m === null) throw new RangeError(`not a decimal: ${JSON.stringify(text)}`);
  const [, sign = "", whole = "0", fraction = "", exponent = "0"] = m;
  let n = BigInt(`${whole}${fraction}`);
  let d = 10n ** BigInt(fraction.length);
  const e = Number(exponent);
  if (e >= 0) n *= 10n ** BigInt(e);
  else d *= 10n ** BigInt(-e);
  return { n: sign === "-" ? -n : n, d };
}

/** A JSON number (a size member, a byte count) as the exact decimal it prints as. */
export function exactOfNumber(value: number): Exact {
  if (!Number.isFinite(value)) throw new RangeError("not a finite number");
  return exactOf(String(value));
}

/** An integer count (cents, milliseconds, bytes) as an exact fraction. */
export function exactInteger(value: bigint): Exact {
  return { n: value, d: 1n };
}

export function times(a: Exact, b: Exact): Exact {
  return { n: a.n * b.n, d: a.d * b.d };
}

export function plus(a: Exact, b: Exact): Exact {
  return a.d === b.d ? { n: a.n + b.n, d: a.d } : { n: a.n * b.d + b.n * a.d, d: a.d * b.d };
}

export function minus(a: Exact, b: Exact): Exact {
  return plus(a, { n: -b.n, d: b.d });
}

/** `a / b` for a positive `b`. */
export function over(a: Exact, b: Exact): Exact {
  if (b.n <= 0n) throw new RangeError("the oracle divides by positive amounts only");
  return { n: a.n * b.d, d: a.d * b.n };
}

const abs = (x: bigint) => (x < 0n ? -x : x);

/**
 * `x` rounded to `places` decimals, half away from zero (docs/pricing-model.md#rounding), as the scaled
 * integer: cents for 2 places.
 */
export function rounded(x: Exact, places: number): bigint {
  const scaled = abs(x.n) * 10n ** BigInt(places);
  const q = scaled / x.d;
  const up = 2n * (scaled % x.d) >= x.d ? q + 1n : q;
  return x.n < 0n ? -up : up;
}

/** `x` lies exactly half way between two neighbours of `places` decimals: the rounding rule decides. */
export function onTie(x: Exact, places: number): boolean {
  return 2n * ((abs(x.n) * 10n ** BigInt(places)) % x.d) === x.d;
}

/** A scaled integer as decimal text with `places` decimals (`-3.10` for -310n and 2). */
export function scaledText(value: bigint, places: number): string {
  const digits = abs(value)
    .toString()
    .padStart(places + 1, "0");
  const cut = digits.length - places;
  const text = places === 0 ? digits : `${digits.slice(0, cut)}.${digits.slice(cut)}`;
  return value < 0n ? `-${text}` : text;
}

/** Cents as an exact fraction. */
export function exactCents(cents: bigint): Exact {
  return { n: cents, d: 100n };
}
