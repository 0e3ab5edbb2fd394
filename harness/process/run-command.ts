import { trackCommand, untrackGroup } from "./cleanup-registry.ts";

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * Runs a short-lived CLI and returns its stdout; a non-zero exit throws with its stderr. It runs in a
 * process group of its own, tracked while the harness has services, so that abandoning a start (or
 * the reaper) also ends an `initdb` or `ovs-vsctl` still at work.
 */
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
    detached: true,
  });
  const tracked = trackCommand(child.pid);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]).finally(() => {
    if (tracked) untrackGroup(child.pid);
  });
  if (code !== 0) {
    const shown = [command, ...args].join(" ");
    throw new Error(`${shown} exited with ${code ?? child.signalCode}: ${stderr.trim() || stdout.trim()}`);
  }
  return stdout;
}
