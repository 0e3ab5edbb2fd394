import { parseInteger, parseNonNegative } from "../../foundation/cli/flag-values.ts";
import { Problems } from "../../foundation/cli/usage-error.ts";
import { parseDuration } from "../../foundation/time/duration.ts";
import { hasEnded, type Period, parsePeriod } from "../../foundation/time/period.ts";
import { type ExtraType, parseExtraTypes } from "./extra-types.ts";
import { type FaultSwitch, parseFaultSwitches } from "./fault-switch.ts";
import { defaultScale, type MonthScale } from "./month.ts";
import { type NovaFormat, parseNovaFormat } from "./nova-format.ts";

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
  "nova-format"?: string | undefined;
  "extra-types"?: string | undefined;
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
  /** What nova sends: its legacy notifications, its versioned ones, or both (decision 287). */
  novaFormat: NovaFormat;
  /** Resource types beyond the default month's (decision 288). */
  extraTypes: ExtraType[];
}

/** Largest scale we accept: 100,000 classic tenants is past anything a file or a broker month needs. */
const maxTenants = 100_000;

/**
 * Validates every `run` flag at once (docs/simulator.md#flags-of-run), before anything is dialled or written,
 * and throws one UsageError naming them all.
 */
export function parseRunOptions(flags: RunFlags, now: Date): RunOptions {
  const problems = new Problems();
  const read = <T>(flag: string, value: string | undefined, fallback: T, parse: (text: string) => T): T =>
    value === undefined ? fallback : (problems.attempt(flag, () => parse(value)) ?? fallback);

  let period = parsePeriod("1970-01");
  if (flags.period === undefined || flags.period === "") problems.add("--period is required (YYYY-MM)");
  else {
    const parsed = problems.attempt("--period:", () => parsePeriod(flags.period ?? ""));
    if (parsed !== undefined && !hasEnded(parsed, now)) {
      problems.add(`--period ${parsed.name} has not ended: the simulator generates ended months only`);
    }
    period = parsed ?? period;
  }
  const seed = read("--seed", flags.seed, 1, (t) => parseInteger(t));
  const factor = read("--factor", flags.factor, 744, parseNonNegative);
  const faults = read("--faults", flags.faults, [], parseFaultSwitches);
  // The metrics grid: whole seconds from 30 seconds to 24 hours (docs/simulator.md#flags-of-run).
  const metricsIntervalMs = read("--metrics-interval", flags["metrics-interval"], 300_000, (t) =>
    parseDuration(t, { minMs: 30_000, maxMs: 86_400_000, stepMs: 1000 }),
  );
  const waitForCollectorMs = read("--wait-for-collector", flags["wait-for-collector"], 120_000, (t) =>
    parseDuration(t),
  );
  const tenants = read("--tenants", flags.tenants, defaultScale.tenants, (t) =>
    parseInteger(t, { min: 1, max: maxTenants }),
  );
  const novaFormat = read("--nova-format", flags["nova-format"], "legacy", parseNovaFormat);
  const extras = read("--extra-types", flags["extra-types"], [], parseExtraTypes);
  problems.throwIfAny();
  return {
    period,
    seed,
    factor,
    faults,
    out: flags.out === undefined || flags.out === "" ? null : flags.out,
    metricsIntervalSeconds: metricsIntervalMs / 1000,
    registerProjects: flags["register-projects"] ?? false,
    allowRemoteBroker: flags["allow-remote-broker"] ?? false,
    waitForCollectorMs,
    scale: { tenants },
    novaFormat,
    extraTypes: extras,
  };
}

/** `replay` flags as the command line gives them. */
export interface ReplayFlags {
  in?: string | undefined;
  factor?: string | undefined;
  "wait-for-collector"?: string | undefined;
  "allow-remote-broker"?: boolean | undefined;
}

export interface ReplayOptions {
  in: string;
  factor: number;
  waitForCollectorMs: number;
  allowRemoteBroker: boolean;
}

/** Validates every `replay` flag at once (docs/simulator.md#replaying-a-recorded-month), before the file is read or a broker dialled. */
export function parseReplayOptions(flags: ReplayFlags): ReplayOptions {
  const problems = new Problems();
  if (flags.in === undefined || flags.in === "") problems.add("--in is required (a notifications file)");
  const factor =
    flags.factor === undefined
      ? 744
      : (problems.attempt("--factor", () => parseNonNegative(flags.factor ?? "")) ?? 744);
  const wait = flags["wait-for-collector"];
  const waitForCollectorMs =
    wait === undefined
      ? 120_000
      : (problems.attempt("--wait-for-collector", () => parseDuration(wait)) ?? 120_000);
  problems.throwIfAny();
  return {
    in: flags.in ?? "",
    factor,
    waitForCollectorMs,
    allowRemoteBroker: flags["allow-remote-broker"] ?? false,
  };
}
