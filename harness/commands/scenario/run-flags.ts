import { resolve } from "node:path";
import { parseInteger } from "../../../lib/foundation/cli/flag-values.ts";
import { Problems } from "../../../lib/foundation/cli/usage-error.ts";
import { hasEnded, type Period, parsePeriod } from "../../../lib/foundation/time/period.ts";
import type { Via } from "../../scenario/month-delivery.ts";

/** The month every scenario simulates unless told otherwise: fixed, so that a seed always bills alike. */
export const defaultPeriod = "2026-10";
/** Classic tenants by default, as the simulator's own default. */
export const defaultTenants = 10;

/** The flags of `bun scenario <name>`. */
export const runArgs = {
  seed: { type: "string", valueHint: "n", default: "1", description: "integer seed of the simulated month" },
  period: {
    type: "string",
    valueHint: "YYYY-MM",
    default: defaultPeriod,
    description: "the month, YYYY-MM; it must have ended",
  },
  tenants: {
    type: "string",
    valueHint: "n",
    default: String(defaultTenants),
    description: "classic tenants beside the two infrastructure tenants (10: about 300 resources)",
  },
  keep: {
    type: "boolean",
    default: false,
    description: "leave the stack up afterwards, with its URLs and export lines, until Ctrl-C",
  },
  out: {
    type: "string",
    valueHint: "dir",
    description: "keep every artefact here: simulator files, exports, logs, report",
  },
  via: {
    type: "string",
    valueHint: "broker|file",
    description:
      "broker: the simulator publishes on RabbitMQ and the collector carries the month (the default once both are built); file: the simulator's events posted to ingest",
  },
  "drop-event": {
    type: "string",
    valueHint: "id",
    description: "withhold this event id from delivery, to see how a lost event shows in the bill",
  },
} as const;

interface RunFlags {
  seed: string;
  period: string;
  tenants: string;
  keep: boolean;
  out?: string | undefined;
  via?: string | undefined;
  "drop-event"?: string | undefined;
}

export interface RunChoice {
  seed: number;
  period: Period;
  tenants: number;
  keep: boolean;
  out: string | null;
  /** Asked for; unset: the broker once it is built, the file path before, and for --drop-event. */
  via: Via | undefined;
  dropEvent: string | undefined;
}

/** Reads the run flags, every bad one named at once. */
export function parseRunFlags(flags: RunFlags, now: Date): RunChoice {
  const problems = new Problems();
  const seed = problems.attempt("--seed", () => parseInteger(flags.seed, { min: 0 }));
  const period = problems.attempt("--period:", () => {
    const p = parsePeriod(flags.period);
    if (!hasEnded(p, now))
      throw new RangeError(`${p.name} has not ended yet: a scenario bills an ended month`);
    return p;
  });
  const tenants = problems.attempt("--tenants", () => parseInteger(flags.tenants, { min: 1, max: 2000 }));
  if (flags.via !== undefined && flags.via !== "broker" && flags.via !== "file")
    problems.add(`--via takes broker or file, got ${JSON.stringify(flags.via)}`);
  if (flags.via === "broker" && flags["drop-event"] !== undefined)
    problems.add("--drop-event withholds an event on the file path: it cannot be used with --via broker");
  problems.throwIfAny();
  return {
    seed: seed as number,
    period: period as Period,
    tenants: tenants as number,
    keep: flags.keep,
    out: flags.out === undefined ? null : resolve(flags.out),
    via: flags.via as Via | undefined,
    dropEvent: flags["drop-event"],
  };
}
