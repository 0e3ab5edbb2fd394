/**
 * The arithmetic of half-cent ties that the money-edges month is drawn with (decision 546): which rate
 * of six places, applied to a base of whole cents, lands a line or an apportioned share on exactly half
 * a cent. Amounts are whole cents (bigint), rates millionths.
 */

export function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** n/d in lowest terms (d positive). */
export function reduced(n: bigint, d: bigint): { n: bigint; d: bigint } {
  const g = gcd(n, d);
  return g === 0n ? { n, d } : { n: n / g, d: d / g };
}

const million = 1_000_000n;

/** A rate of `x` millionths as a pricing adjustment writes it (`0.125`, `1`). */
export function rateText(x: bigint): string {
  if (x === million) return "1";
  const fraction = x.toString().padStart(6, "0").replace(/0+$/, "");
  return `0.${fraction}`;
}

/** Cents rounded half away from zero from an exact n/d of cents (d positive). */
export function roundedCents(n: bigint, d: bigint): bigint {
  const abs = n < 0n ? -n : n;
  const q = abs / d;
  const up = 2n * (abs % d) >= d ? q + 1n : q;
  return n < 0n ? -up : up;
}

/**
 * A rate (millionths) whose line on `base` cents lies exactly on half a cent, `x × base / 10^6` an odd
 * half: `2 × x × base` must be an odd multiple of 10^6. x must then be a multiple of
 * s = 10^6 / gcd(2 × base, 10^6), and the multiple's quotient odd. The smallest odd multiple of at
 * least a hundredth (10,000) that `accept` takes is returned (money-edges takes one whose line a
 * correction moves, decision 548), else the smallest of at least a hundredth when one is at most 1.
 * Null when the base has six twos or more (every multiple is then even).
 */
export function lineTieRate(base: bigint, accept: (rate: bigint) => boolean = () => true): bigint | null {
  if (base <= 0n) return null;
  const s = million / gcd(2n * base, million);
  if (((2n * base * s) / million) % 2n === 0n) return null;
  let t = 1n;
  while (s * t < 10_000n && s * (t + 2n) <= million) t += 2n;
  for (let u = t; s * u <= million; u += 2n) if (accept(s * u)) return s * u;
  return s * t;
}

/**
 * A rate (millionths) at which a line on `weights` (cents, summed as the base) rounds to a whole
 * number L of cents whose share on one bucket but the last, L × w / W, lies exactly on half a cent.
 * With g = gcd(w, W), L × w / W = L × (w/g) / (W/g) is an odd half when W/g is even, w/g odd and
 * L = (W/g)/2 (the rate is then about 1/(2g)); the rate of six places nearest L/W is taken if it rounds
 * to L. Null when no bucket allows it.
 */
export function shareTieRate(weights: readonly bigint[]): { rate: bigint; line: bigint } | null {
  const total = weights.reduce((a, b) => a + b, 0n);
  if (total <= 0n) return null;
  for (const w of weights.slice(0, -1)) {
    if (w <= 0n) continue;
    const g = gcd(w, total);
    const m = total / g;
    if (m % 2n !== 0n || (w / g) % 2n === 0n) continue;
    const line = m / 2n;
    const nearest = roundedCents(line * million, total);
    for (const x of [nearest, nearest - 1n, nearest + 1n])
      if (x > 0n && x <= million && roundedCents(x * total, million) === line) return { rate: x, line };
  }
  return null;
}
