import { ValidationError } from "../errors/svc-error.ts";
import { hasEnded, type Period, parsePeriod } from "../time/period.ts";
import { parseDuration } from "./duration.ts";
import { type FaultSwitch, parseFaultSwitches } from "./fault-switch.ts";
import { defaultScale, type MonthScale } from "./month.ts";

/** `run` flags as the command line gives them, before validation. */
export interface RunFlags {
  period?: string | undefined;
  seed?: string | undefined;
  factor?: string | undefined;
  faults?: string | undefined;
  out?: string | undefined;
  "metrics-interval"?: string | undefined;
  "register-projects"?: boolean | undefined;
  "allow-remote-broker"?: boolean | undefined;
  "wait-for-collector"?: string | undefined;
  tenants?: string | undefined;
}

export interface RunOptions {
  period: Period;
  seed: number;
  /** Virtual seconds per wall second; 0 publishes as fast as the broker confirms. */
  factor: number;
  faults: FaultSwitch[];
  out: string | null;
  metricsIntervalSeconds: number;
  registerProjects: boolean;
  allowRemoteBroker: boolean;
  waitForCollectorMs: number;
  scale: MonthScale;
}

/** Largest scale we accept: 100,000 classic tenants is past anything a file or a broker month needs. */
const maxTenants = 100_000;

/**
 * Validates every `run` flag at once (spec 2, rules 3 and 4), before anything is dialled or written.
 * All refusals are gathered into one error so a caller fixes the command line in one go.
 */
export function parseRunOptions(flags: RunFlags, now: Date): RunOptions {
  const problems: string[] = [];
  const attempt = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
      return fallback;
    }
  };

  let period = parsePeriod("1970-01");
  if (flags.period === undefined || flags.period === "") problems.push("--period is required (YYYY-MM)");
  else {
    const before = problems.length;
    period = attempt(() => parsePeriod(flags.period ?? ""), period);
    if (problems.length === before && !hasEnded(period, now)) {
      problems.push(`--period ${period.name} has not ended: the simulator generates ended months only`);
    }
  }
  const seed = integerFlag("--seed", flags.seed, 1, problems, { min: Number.MIN_SAFE_INTEGER });
  const factor = numberFlag("--factor", flags.factor, 744, problems);
  const faults = attempt(() => parseFaultSwitches(flags.faults), []);
  const metricsIntervalSeconds = metricsInterval(flags["metrics-interval"], problems);
  const waitForCollectorMs = durationFlag(
    "--wait-for-collector",
    flags["wait-for-collector"],
    120_000,
    problems,
  );
  const tenants = integerFlag("--tenants", flags.tenants, defaultScale.tenants, problems, {
    min: 1,
    max: maxTenants,
  });
  const out = flags.out === undefined || flags.out === "" ? null : flags.out;
  if (problems.length > 0) throw new ValidationError(problems.join("; "));
  return {
    period,
    seed,
    factor,
    faults,
    out,
    metricsIntervalSeconds,
    registerProjects: flags["register-projects"] ?? false,
    allowRemoteBroker: flags["allow-remote-broker"] ?? false,
    waitForCollectorMs,
    scale: { tenants },
  };
}

function integerFlag(
  name: string,
  value: string | undefined,
  fallback: number,
  problems: string[],
  bounds: { min?: number; max?: number } = {},
): number {
  if (value === undefined) return fallback;
  const n = /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = bounds;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range =
      bounds.min === undefined || bounds.min <= Number.MIN_SAFE_INTEGER ? "" : ` from ${min} to ${max}`;
    problems.push(`${name} takes an integer${range}, got ${JSON.stringify(value)}`);
    return fallback;
  }
  return n;
}

function numberFlag(name: string, value: string | undefined, fallback: number, problems: string[]): number {
  if (value === undefined) return fallback;
  const n = value.trim() === "" ? Number.NaN : Number(value);
  if (!Number.isFinite(n) || n < 0) {
    problems.push(`${name} takes a number zero or positive, got ${JSON.stringify(value)}`);
    return fallback;
  }
  return n;
}

function durationFlag(
  name: string,
  value: string | undefined,
  fallbackMs: number,
  problems: string[],
): number {
  if (value === undefined) return fallbackMs;
  const ms = parseDuration(value);
  if (ms === null) {
    problems.push(
      `${name} takes a duration zero or positive such as 0, 90s or 2m, got ${JSON.stringify(value)}`,
    );
    return fallbackMs;
  }
  return ms;
}

/** 30 seconds to 24 hours in whole seconds (spec 2, Limits: the metrics grid). */
function metricsInterval(value: string | undefined, problems: string[]): number {
  if (value === undefined) return 300;
  const ms = parseDuration(value);
  if (ms === null || ms % 1000 !== 0 || ms < 30_000 || ms > 86_400_000) {
    problems.push(`--metrics-interval takes whole seconds from 30s to 24h, got ${JSON.stringify(value)}`);
    return 300;
  }
  return ms / 1000;
}
