import type { Subprocess } from "bun";
import { serviceAllocatorEnv } from "../../lib/foundation/process/allocator-env.ts";
import { freePort } from "../process/free-port.ts";
import { waitFor } from "../process/wait-for.ts";

export interface ReportingProcess {
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  readonly base: string;
  /** Whether the process is still running (it has not exited, for whatever reason). */
  running(): boolean;
  /** SIGTERM, then the exit code and everything it wrote. */
  stop(): Promise<{ code: number; stdout: string; stderr: string }>;
}

const script = `${import.meta.dir}/../../cmd/reporting.ts`;

/**
 * `cmd/reporting.ts` as its own process on a free port, ready (`/readyz` 200) before this returns: the
 * program as an operator runs it, for the bench and for tests that fault its database under load.
 */
export async function startReportingProcess(env: Record<string, string>): Promise<ReportingProcess> {
  const port = await freePort();
  const proc = Bun.spawn(["bun", script], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      ...serviceAllocatorEnv(),
      SVC_LOG_LEVEL: "WARN",
      SVC_REPORTING_INTERNAL_TOKEN: "internal",
      ...env,
      SVC_REPORTING_HTTP_PORT: String(port),
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = new Response(proc.stdout).text();
  const stderr = new Response(proc.stderr).text();
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    proc.kill("SIGTERM");
    const code = await proc.exited;
    return { code, stdout: await stdout, stderr: await stderr };
  };
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error("the reporting server exited before it was ready");
        return await fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
      },
      {
        timeoutMs: 20_000,
        intervalMs: 100,
        onTimeout: () => new Error("the reporting server did not become ready"),
      },
    );
  } catch (error) {
    const out = await stop();
    throw new Error(`${(error as Error).message} (exit ${out.code}): ${out.stderr}${out.stdout}`);
  }
  return { proc, base, running: () => proc.exitCode === null && proc.signalCode === null, stop };
}
