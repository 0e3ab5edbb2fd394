/**
 * The one duration grammar of our flags and settings (decision 41): `0`, or one or more
 * `<number><unit>` parts with units `h`, `m`, `s`, `ms`, as Go writes them (`500ms`, `90s`, `5m`,
 * `1.5m`, `1h30m`). No spaces, no sign, no bare number other than `0`. Each caller states its own
 * bounds, so the same text means the same span everywhere and only the range differs.
 */

interface DurationBounds {
  /** Smallest accepted span in milliseconds (default 0). */
  minMs?: number;
  /** Largest accepted span in milliseconds (default: none). */
  maxMs?: number;
  /** The span must be a whole multiple of this many milliseconds (for example 1000: whole seconds). */
  stepMs?: number;
}

/** A duration the grammar or the caller's bounds refuse; the message completes "<flag> ...". */
export class DurationError extends RangeError {
  override name = "DurationError";
}

const units: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const part = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;

/** Milliseconds of `text` within `bounds`; throws DurationError saying what is taken. */
export function parseDuration(text: string, bounds: DurationBounds = {}): number {
  const ms = spanOf(text);
  const { minMs = 0, maxMs, stepMs } = bounds;
  if (ms === undefined) {
    throw new DurationError(
      `takes a duration such as 0, 500ms, 90s, 5m or 1h30m, got ${JSON.stringify(text)}`,
    );
  }
  const tooLong = maxMs !== undefined && ms > maxMs;
  const offStep = stepMs !== undefined && ms % stepMs !== 0;
  if (ms < minMs || tooLong || offStep) {
    const range =
      maxMs === undefined
        ? `of at least ${formatDuration(minMs)}`
        : `from ${formatDuration(minMs)} to ${formatDuration(maxMs)}`;
    const step = stepMs === undefined ? "" : ` in whole ${formatDuration(stepMs)}`;
    throw new DurationError(`takes a duration ${range}${step}, got ${JSON.stringify(text)}`);
  }
  return ms;
}

function spanOf(text: string): number | undefined {
  if (text === "0") return 0;
  let total = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (m === null) return undefined;
    total += Number(m[1]) * (units[m[2] ?? ""] ?? Number.NaN);
    at = part.lastIndex;
  }
  return at === 0 || !Number.isFinite(total) ? undefined : Math.round(total);
}

/** The shortest text of `ms` in the grammar (`0`, `250ms`, `90s`, `1h30m`): for messages and help. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  let rest = ms;
  let out = "";
  for (const [unit, size] of Object.entries(units)) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}
