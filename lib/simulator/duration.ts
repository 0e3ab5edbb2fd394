const units: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/**
 * Milliseconds of a duration written like Go's (`90s`, `5m`, `1h30m`, `250ms`), or `0`; null for
 * anything else. Go's form because the flags of our programs and their neighbours use it.
 */
export function parseDuration(text: string): number | null {
  const value = text.trim();
  if (value === "0") return 0;
  const part = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;
  let total = 0;
  let consumed = 0;
  while (consumed < value.length) {
    part.lastIndex = consumed;
    const m = part.exec(value);
    if (m === null) return null;
    total += Number(m[1]) * (units[m[2] ?? ""] ?? Number.NaN);
    consumed = part.lastIndex;
  }
  return consumed === 0 || !Number.isFinite(total) ? null : Math.round(total);
}
