import type { Env } from "../config/fields.ts";
import { redactUrlCredentials } from "../log/redact.ts";
import { CliExit, type CliIo, processIo } from "./cli-io.ts";
import type { Command } from "./command.ts";
import { exitCodes } from "./exit-codes.ts";
import { helpText, helpWidth } from "./help-text.ts";
import { NotBuiltError, UsageError } from "./usage-error.ts";
import { versionLine } from "./version.ts";

/** Whether one of `names` is among the tokens before `--`. */
function asks(tokens: readonly string[], names: readonly string[]): boolean {
  const end = tokens.indexOf("--");
  return (end === -1 ? tokens : tokens.slice(0, end)).some((t) => names.includes(t));
}

/** Walks subcommand names from the front of `tokens`: the command to run, its path, its own tokens. */
function resolve(root: Command, argv: readonly string[]) {
  let current = root;
  const path = [root.name];
  let tokens = [...argv];
  let unknown: string | undefined;
  while (current.subCommands !== undefined) {
    const at = tokens.findIndex((t) => !t.startsWith("-"));
    const name = at === -1 ? undefined : tokens[at];
    const next = name === undefined ? undefined : current.subCommands[name];
    if (next === undefined) {
      unknown = name;
      break;
    }
    tokens = tokens.filter((_, i) => i !== at);
    path.push(next.name);
    current = next;
  }
  return { command: current, path, tokens, unknown };
}

/**
 * Runs a program's command tree (convention in `lib/foundation/cli/command.ts`): `--help` prints the usage and
 * exits 0; a refusal prints `<program>: <problem>` lines and where the help is on stderr and exits 1;
 * a part not built yet says so and exits 2; any other failure prints `<program>: <message>` and exits
 * with the command's `failureExit` (2, or 1 for a process that serves until stopped: decision 47). A command that returns normally leaves the process to end by itself (or serve on).
 */
export async function runCli(
  root: Command,
  options: { argv?: readonly string[]; env?: Env; io?: CliIo } = {},
): Promise<void> {
  const io = options.io ?? processIo;
  const argv = options.argv ?? process.argv.slice(2);
  const { command, path, tokens, unknown } = resolve(root, argv);
  const refuse = (problems: readonly string[]): never => {
    const lines = problems.map((p) => `${root.name}: ${p}\n`).join("");
    io.stderr(`${lines}${root.name}: see '${path.join(" ")} --help'\n`);
    return io.exit(exitCodes.refused);
  };
  if (asks(argv, ["--version"])) {
    io.stdout(`${versionLine(root.name)}\n`);
    return io.exit(exitCodes.ok);
  }
  if (asks(tokens, ["--help", "-h"])) {
    io.stdout(helpText(command, path, io.isTerminal ? (io.columns ?? helpWidth) : helpWidth));
    return io.exit(0);
  }
  if (unknown !== undefined && command.subCommands !== undefined) {
    refuse([
      `unknown command ${JSON.stringify(unknown)}: one of ${Object.keys(command.subCommands).join(", ")}`,
    ]);
  }
  let work: () => Promise<unknown>;
  try {
    work = command.prepare(tokens, options.env ?? process.env, io);
  } catch (error) {
    if (error instanceof UsageError) return refuse(error.problems);
    throw error;
  }
  try {
    await work();
  } catch (error) {
    if (error instanceof CliExit) throw error;
    if (error instanceof UsageError) return refuse(error.problems);
    if (error instanceof NotBuiltError) {
      io.stderr(`${error.message}\n`);
      return io.exit(exitCodes.failed);
    }
    // A failure the program did not foresee may quote what a driver was given: secrets are masked.
    io.stderr(
      `${root.name}: ${redactUrlCredentials(error instanceof Error ? error.message : String(error))}\n`,
    );
    return io.exit(command.failureExit);
  }
}
