// What the netview benchmarks share: netview started as an operator runs it (`bun cmd/netview.ts`)
// on given databases, and a process's memory figures from /proc.
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { freePort } from "../harness/process/free-port.ts";
import type { OvsdbServer } from "../harness/services/ovsdb-server.ts";

/** A `/proc/<pid>/status` field in KiB (`VmRSS`, `VmHWM`). */
export function statusKib(pid: number, field: string): number {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  return Number(match?.[1]);
}

/** CPU time (user and system) a process has used so far, in ms, from `/proc/<pid>/stat`. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / clockTicks;
}

/** USER_HZ: 100 on every Linux these benchmarks run on. */
const clockTicks = 100;

/** netview on `nb` and `sb` with `extraArgs`, once `/readyz` answers 200. */
export async function startNetview(
  nb: OvsdbServer,
  sb: OvsdbServer,
  extraArgs: string[] = [],
): Promise<{ proc: Subprocess; port: number; readyMs: number; listeningMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const proc = Bun.spawn(
    [
      "bun",
      "cmd/netview.ts",
      `--ovnnb-db=${nb.tcpRemote}`,
      `--ovnsb-db=${sb.tcpRemote}`,
      `--listen=127.0.0.1:${port}`,
      ...extraArgs,
    ],
    { stdout: "ignore", stderr: "inherit", env: { ...process.env, SVC_LOG_LEVEL: "WARN" } },
  );
  // Listening (any answer) separates Bun's start-up from the initial sync.
  let listeningMs = Number.NaN;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (Number.isNaN(listeningMs)) listeningMs = performance.now() - started;
      if (res.status === 200) return { proc, port, readyMs: performance.now() - started, listeningMs };
    } catch {
      // Not listening yet.
    }
    if (proc.exitCode !== null) throw new Error("netview exited before ready");
    await Bun.sleep(10);
  }
}
