import { join } from "node:path";

export interface ProgramRun {
  stdout: string;
  stderr: string;
  code: number;
}

const root = join(import.meta.dir, "../..");

/**
 * Runs one of our Bun scripts (path relative to the repository root) as its own process, with only
 * PATH and `env` in its environment so the test states everything the program reads, and returns
 * what it printed and its exit status. For testing programs the way an operator runs them.
 */
export function runProgram(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ProgramRun> {
  return startProgram(script, args, env).done;
}

/** `runProgram` with the process's id known while it runs: what a test or a scenario signals. */
export function startProgram(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
): { pid: number; done: Promise<ProgramRun> } {
  const proc = Bun.spawn(["bun", join(root, script), ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const done = Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]).then(([stdout, stderr, code]) => ({ stdout, stderr, code }));
  return { pid: proc.pid, done };
}
