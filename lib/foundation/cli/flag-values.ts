/**
 * Readers of flag values that several programs take. Each throws RangeError with the text that
 * completes "--<flag> ...", which `command`'s `parse` and `Problems.attempt` turn into a refusal.
 */

/** An integer within `bounds` (both inclusive; default: any safe integer). */
export function parseInteger(text: string, bounds: { min?: number; max?: number } = {}): number {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  const n = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range =
      bounds.min === undefined && bounds.max === undefined
        ? ""
        : bounds.max === undefined
          ? ` of at least ${min}`
          : ` from ${min} to ${max}`;
    throw new RangeError(`takes an integer${range}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** A finite decimal number zero or positive (`0`, `1.5`, `744`). */
export function parseNonNegative(text: string): number {
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(n))
    throw new RangeError(`takes a number zero or positive, got ${JSON.stringify(text)}`);
  return n;
}
