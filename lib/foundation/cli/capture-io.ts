import type { Env } from "../config/fields.ts";
import type { Command } from "./command.ts";
import { runCli } from "./run-cli.ts";

/** What `runCli` would have printed and the status it would have exited with. */
export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/**
 * Runs a command tree in this process with its output captured, for tests of a program's commands
 * that need no process of their own (`harness/process/run-program.ts` runs the real script).
 */
export async function runCaptured(root: Command, argv: readonly string[], env: Env): Promise<CliOutcome> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
    isTerminal: false,
    exit: (code: number): never => {
      throw new Exit(code);
    },
  };
  try {
    await runCli(root, { argv, env, io });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (error instanceof Exit) return { code: error.code, stdout, stderr };
    throw error;
  }
}
