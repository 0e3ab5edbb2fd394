/**
 * netview as an operator runs it (`bun cmd/netview.ts`), listening on a free port of 127.0.0.1, for
 * the tests and benches that restart, stop or measure the process itself.
 */
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "../process/free-port.ts";

export interface NetviewProcess {
  proc: Subprocess;
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** From spawn to the first answer of `/readyz`, and to its first 200. */
  listeningMs: number;
  readyMs: number;
}

const program = join(import.meta.dir, "../../cmd/netview.ts");

/**
 * Starts netview with `args` (databases, state dir; not `--listen`) on `port` (a free one unless
 * given: a restart keeps its address) and waits for `/readyz` 200.
 */
export async function startNetviewProcess(
  args: readonly string[],
  options: { env?: Record<string, string>; timeoutMs?: number; port?: number } = {},
): Promise<NetviewProcess> {
  const port = options.port ?? (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const proc = Bun.spawn(["bun", program, ...args, `--listen=127.0.0.1:${port}`], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "inherit",
    env: { PATH: process.env.PATH ?? "", ...options.env, SVC_LOG_LEVEL: "WARN" },
  });
  const deadline = started + (options.timeoutMs ?? 60_000);
  let listeningMs = Number.NaN;
  for (;;) {
    try {
      const res = await fetch(`${base}/readyz`);
      if (Number.isNaN(listeningMs)) listeningMs = performance.now() - started;
      if (res.status === 200) return { proc, port, base, listeningMs, readyMs: performance.now() - started };
    } catch {
      // Not listening yet.
    }
    if (proc.exitCode !== null) throw new Error(`netview exited with ${proc.exitCode} before it was ready`);
    if (performance.now() > deadline) {
      proc.kill("SIGKILL");
      await proc.exited;
      throw new Error("netview was not ready in time");
    }
    await Bun.sleep(10);
  }
}
