import type { Env } from "../config/fields.ts";
import { CliExit, type CliIo } from "./cli-io.ts";
import type { Command } from "./command.ts";
import { runCli } from "./run-cli.ts";

/** What `runCli` would have printed and the status it would have exited with. */
interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command tree in this process with its output captured, for tests of a program's commands
 * that need no process of their own (`harness/process/run-program.ts` runs the real script).
 */
export async function runCaptured(
  root: Command,
  argv: readonly string[],
  env: Env,
  world: Partial<Pick<CliIo, "cwd" | "isTerminal" | "stderrIsTerminal" | "columns" | "onInterrupt">> = {},
): Promise<CliOutcome> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
    isTerminal: false,
    stderrIsTerminal: false,
    columns: undefined,
    cwd: process.cwd(),
    onInterrupt: () => {},
    exit: (code: number): never => {
      throw new CliExit(code);
    },
    ...world,
  };
  try {
    await runCli(root, { argv, env, io });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (error instanceof CliExit) return { code: error.code, stdout, stderr };
    throw error;
  }
}
