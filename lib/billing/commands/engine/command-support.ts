/** What the engine's commands share: the period flag, the databases they open, and how failures read. */
import { readFile } from "node:fs/promises";
import type { ArgsDef } from "citty";
import type { Sql } from "postgres";
import { type CliIo, printLines } from "../../../foundation/cli/cli-io.ts";
import { type Command, command, type FlagsOf } from "../../../foundation/cli/command.ts";
import { Problems, UsageError } from "../../../foundation/cli/usage-error.ts";
import { describeDatabaseFailure } from "../../../foundation/postgres/database-failure.ts";
import { selfCommand } from "../../../foundation/process/self-command.ts";
import { type Period, parsePeriod } from "../../../foundation/time/period.ts";
import { type EngineDatabase, openEngineDatabase } from "../../engine/engine-database.ts";
import { engineDbSettings } from "../../engine/engine-settings.ts";
import type { CounterSetup } from "../../engine/rate-month.ts";
import { openReportingSource } from "../../engine/reporting-source.ts";
import { maxWorkers } from "../../engine/shards/shard.ts";
import { WorkerFailed, type Workers } from "../../engine/shards/worker-pool.ts";
import { CounterSourcesError, readCounterSources } from "../../metering/counter-sources.ts";
import { victoriaMetricsCounterStore } from "../../metering/counter-store.ts";
import { PricingModelError } from "../../pricing/pricing-model.ts";
import { MoneyInvariantError } from "../../statements/money-invariants.ts";

/** `--json`, on every command whose output a script reads (decision 48). */
export const jsonFlag = {
  json: {
    type: "boolean",
    default: false,
    description: "print one JSON document on stdout instead of the lines for a person",
  },
} as const;

/**
 * What a command prints: with `--json` one JSON document on stdout and nothing else; without it the
 * lines for a person (decision 48).
 */
export function report(io: CliIo, json: boolean, document: unknown, lines: () => readonly string[]): void {
  if (json) io.stdout(`${JSON.stringify(document, null, 2)}\n`);
  else printLines(io.stdout, lines());
}

export const periodFlag = {
  period: { type: "string", valueHint: "YYYY-MM", required: true, description: "the month, YYYY-MM (UTC)" },
} as const;

/** `--run <id>`: the run a command reads; `description` says which one it takes without the flag. */
export function runFlag(description: string) {
  return { run: { type: "string", valueHint: "id", description } } as const;
}

export function readPeriod(flags: { period: string }): { period: Period } {
  const problems = new Problems();
  const period = problems.attempt("--period:", () => parsePeriod(flags.period));
  problems.throwIfAny();
  return { period: period as Period };
}

/** `--workers N` of `run` and `correct` (decision 470): the month spread over N processes. */
export const workersFlag = {
  workers: {
    type: "string",
    valueHint: "N",
    default: "1",
    description: `meter the month in N worker processes, 1 to ${maxWorkers}, each a shard of the resources; 1 meters in this process`,
  },
} as const;

/** The period and `--workers`: the engine started again once per shard, when more than one. */
export function readPeriodAndWorkers(flags: { period: string; workers: string }): {
  period: Period;
  workers: Workers;
} {
  const problems = new Problems();
  const period = problems.attempt("--period:", () => parsePeriod(flags.period));
  const count = Number(flags.workers);
  if (!/^\d{1,2}$/.test(flags.workers) || count < 1 || count > maxWorkers)
    problems.add(
      `--workers: expected a whole number from 1 to ${maxWorkers}, got ${JSON.stringify(flags.workers)}`,
    );
  problems.throwIfAny();
  return { period: period as Period, workers: { count, command: selfCommand() } };
}

/**
 * The work of a command, with what went wrong said in one line: a refusal stays a UsageError (a file
 * of ours that does not read is one too, one line per problem), a worker's failure says which worker
 * and how it ended (decision 467), a broken money invariant says which (decision 468), and any other
 * failure is described without its URL or a secret (`describeDatabaseFailure`).
 */
export async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UsageError || error instanceof WorkerFailed) throw error;
    if (error instanceof PricingModelError || error instanceof CounterSourcesError)
      throw new UsageError(error.message, { cause: error });
    // Not the caller's mistake: the run failed (exit 2), saying which figure broke which rule.
    if (error instanceof MoneyInvariantError) throw error;
    throw new Error(describeDatabaseFailure(error), { cause: error });
  }
}

/**
 * A command that needs the engine database alone (`finalize`, `kickbacks`, `price`, `export`,
 * `periods list`): its setting, the database open for `work` only, and failures `explained`.
 */
export function engineCommand<const A extends ArgsDef, O = undefined>(spec: {
  name: string;
  description: string;
  args: A;
  parse?: (flags: FlagsOf<A>) => O;
  work: (engine: EngineDatabase, context: { flags: FlagsOf<A>; options: O; io: CliIo }) => Promise<void>;
}): Command {
  return command({
    name: spec.name,
    description: spec.description,
    args: spec.args,
    settings: engineDbSettings,
    parse: spec.parse,
    run: ({ flags, options, config, io }) =>
      explained(() =>
        withEngine(config.dbUrl.reveal(), (engine) => spec.work(engine, { flags, options, io })),
      ),
  });
}

export async function withEngine<T>(url: string, work: (engine: EngineDatabase) => Promise<T>): Promise<T> {
  const engine = openEngineDatabase(url);
  try {
    return await work(engine);
  } finally {
    await engine.close();
  }
}

/** The Reporting database the engine reads, open for `work` only. */
export async function withReporting<T>(url: string, work: (reporting: Sql) => Promise<T>): Promise<T> {
  const reporting = openReportingSource(url);
  try {
    return await work(reporting);
  } finally {
    await reporting.end({ timeout: 5 });
  }
}

/** The counter sources and their store, when the environment names them. */
export async function counterSetup(config: {
  counterSources: string | undefined;
  vmUrl: URL | undefined;
}): Promise<CounterSetup | null> {
  if (config.counterSources === undefined || config.vmUrl === undefined) return null;
  const sources = readCounterSources(await readText(config.counterSources, "the counter sources file"));
  return { sources, store: victoriaMetricsCounterStore(config.vmUrl.toString()) };
}

export async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (cause) {
    throw new UsageError(
      `${what} ${JSON.stringify(file)} cannot be read (${(cause as NodeJS.ErrnoException).code ?? "unreadable"})`,
      { cause },
    );
  }
}
