/**
 * How every program of ours reads its command line and environment (decisions 40–44). A program is a
 * tree of commands declared here and run by `runCli` (`lib/foundation/cli/run-cli.ts`) from its `cmd/*.ts`:
 *
 *   const run = command({
 *     name: "run",
 *     description: "meter a month",
 *     args: { period: { type: "string", required: true, description: "the month, YYYY-MM" } },
 *     settings: { dbUrl: secret("SVC_ENGINE_DB_URL", { required: true }) },
 *     parse: (flags) => {                    // every bad value named: Problems collects them
 *       const problems = new Problems();
 *       const period = problems.attempt("--period", () => parsePeriod(flags.period));
 *       problems.throwIfAny();
 *       return { period };
 *     },
 *     run: async ({ options, config }) => { ... },
 *   });
 *   await runCli(commandGroup({ name: "engine", description: "...", subCommands: { run } }));
 *
 * - Flags are citty declarations (`args`), read strictly: an unknown flag, a missing value, a missing
 *   required flag, an unlisted enum value and a stray argument are each refused.
 * - Settings are `lib/foundation/config` fields read from the environment (`settings`, `checkSettings`).
 * - `parse` turns flag values into the options the command runs with; value readers throw RangeError
 *   with a message that completes "--flag ..." (`lib/foundation/cli/flag-values.ts`, `lib/foundation/time/duration.ts`), and
 *   `Problems` gathers them into one `UsageError`.
 * - Every refusal of flags, values and variables is gathered and shown at once before `run` starts:
 *   plain lines on stderr, `<program>: <problem>`, then where to find `--help`; exit 1.
 * - `run` may itself throw `UsageError` (a rule joining flags and environment) or `NotBuiltError`
 *   (exit 2). `--help` prints the generated usage (flags with meaning and default, variables with their
 *   default) on stdout and exits 0. A server's `run` returns once it listens; the process lives on.
 */
import type { ArgDef, ArgsDef } from "citty";
import type { ConfigProblem } from "../config/config-error.ts";
import { ConfigError } from "../config/config-error.ts";
import type { Env, Field, Presence } from "../config/fields.ts";
import { type ConfigOf, readConfig } from "../config/read-config.ts";
import type { CliIo } from "./cli-io.ts";
import { exitCodes } from "./exit-codes.ts";
import { parseFlags } from "./parse-flags.ts";
import { UsageError } from "./usage-error.ts";

type Settings = Record<string, Field<unknown, Presence<unknown>>>;

type FlagOf<D extends ArgDef> = D extends { type: "boolean" }
  ? D extends { default: boolean }
    ? boolean
    : boolean | undefined
  : D extends { default: string }
    ? string
    : D extends { required: true }
      ? string
      : D extends { type: "positional" }
        ? D extends { required: false }
          ? string | undefined
          : string
        : string | undefined;

/** The values of an `args` declaration, typed by each flag's kind, default and requiredness. */
export type FlagsOf<A extends ArgsDef> = { readonly [K in keyof A]: FlagOf<A[K]> };

interface CommandContext<A extends ArgsDef, S extends Settings, O> {
  flags: FlagsOf<A>;
  options: O;
  config: ConfigOf<S>;
  env: Env;
  /** Where the command prints, and the process it runs in (`cli-io.ts`). */
  io: CliIo;
}

interface CommandSpec<A extends ArgsDef, S extends Settings, O> {
  name: string;
  description: string;
  args?: A;
  settings?: S;
  /** Rules joining variables, and variables a flag makes required (`collector` without `--dump`). */
  checkSettings?: (config: ConfigOf<S>, flags: FlagsOf<A>) => ConfigProblem[];
  parse?: (flags: FlagsOf<A>) => O;
  run: (context: CommandContext<A, S, O>) => unknown;
  /**
   * The exit status of a failure the command did not foresee: `failed` (2) unless the command is a
   * process that serves or publishes until stopped, which exits `fault` (1) as the spec has it.
   */
  failureExit?: number;
}

/** A command with its types erased: what `runCli` walks, helps with and runs. */
export interface Command {
  readonly name: string;
  readonly description: string;
  readonly args: ArgsDef;
  readonly settings: readonly Field<unknown, Presence<unknown>>[];
  readonly subCommands: Readonly<Record<string, Command>> | undefined;
  /** The exit status of a failure `run` did not foresee (decision 47). */
  readonly failureExit: number;
  /** Checks `tokens` and `env` at once and returns the work to do, or throws one UsageError. */
  prepare(tokens: readonly string[], env: Env, io: CliIo): () => Promise<unknown>;
}

export function command<
  const A extends ArgsDef = Record<never, ArgDef>,
  S extends Settings = Record<never, never>,
  O = undefined,
>(spec: CommandSpec<A, S, O>): Command {
  const args = (spec.args ?? {}) as A;
  const settings = (spec.settings ?? {}) as S;
  return {
    name: spec.name,
    description: spec.description,
    args,
    settings: Object.values(settings),
    subCommands: undefined,
    failureExit: spec.failureExit ?? exitCodes.failed,
    prepare(tokens, env, io) {
      const parsed = parseFlags(tokens, args);
      const problems = [...parsed.problems];
      const flags = parsed.values as FlagsOf<A>;
      let options: O | undefined;
      // Values are read even when a flag is unknown or lacks its value, so that every bad value is
      // named at once (decision 40); a value's problem about a flag already named is not said twice,
      // and a reader that cannot work without a flag already refused gives way to that refusal.
      if (spec.parse !== undefined) {
        const named = new Set(problems.map(flagNamed).filter((flag) => flag !== undefined));
        try {
          options = spec.parse(flags);
        } catch (error) {
          const found =
            error instanceof UsageError
              ? error.problems
              : error instanceof RangeError
                ? [error.message]
                : null;
          if (found === null && problems.length === 0) throw error;
          for (const problem of found ?? []) {
            const flag = flagNamed(problem);
            if (flag === undefined || !named.has(flag)) problems.push(problem);
          }
        }
      }
      let config: ConfigOf<S> | undefined;
      try {
        const check = spec.checkSettings;
        config = readConfig(env, settings, check && ((read) => check(read, flags)));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems.push(...error.problems.map((p) => p.message));
      }
      if (problems.length > 0 || config === undefined) throw new UsageError(problems);
      const ready = { flags, options: options as O, config, env, io };
      return async () => spec.run(ready);
    },
  };
}

/** The flag a problem is about: the first `--name` it mentions. */
function flagNamed(problem: string): string | undefined {
  return /--[a-z0-9][a-z0-9-]*/.exec(problem)?.[0];
}

/** A command that only holds subcommands (`reporting-admin token issue`). */
export function commandGroup(spec: {
  name: string;
  description: string;
  subCommands: Record<string, Command>;
}): Command {
  return {
    name: spec.name,
    description: spec.description,
    args: {},
    settings: [],
    subCommands: spec.subCommands,
    failureExit: exitCodes.failed,
    prepare() {
      const names = Object.keys(spec.subCommands).join(", ");
      throw new UsageError(`${spec.name} needs a command: one of ${names}`);
    },
  };
}
