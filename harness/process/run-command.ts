export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs a short-lived CLI and returns its stdout; a non-zero exit throws with its stderr. */
export async function runCommand(
  command: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<string> {
  const child = Bun.spawn([command, ...args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: options.timeoutMs ?? 30_000,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) {
    const shown = [command, ...args].join(" ");
    throw new Error(`${shown} exited with ${code ?? child.signalCode}: ${stderr.trim() || stdout.trim()}`);
  }
  return stdout;
}
