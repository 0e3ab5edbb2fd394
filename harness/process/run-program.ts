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
export async function runProgram(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ProgramRun> {
  const proc = Bun.spawn(["bun", join(root, script), ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}
