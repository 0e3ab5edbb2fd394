// What the netview benchmarks share: netview started as an operator runs it (`bun cmd/netview.ts`)
// on given databases, and a process's memory figures from /proc.
import { readFileSync } from "node:fs";
import type { Subprocess } from "bun";
import { startNetviewProcess } from "../harness/netview/netview-process.ts";

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

/** netview on the NB and SB remotes with `extraArgs`, once `/readyz` answers 200. */
export async function startNetview(
  nbRemote: string,
  sbRemote: string,
  extraArgs: string[] = [],
): Promise<{ proc: Subprocess; port: number; readyMs: number; listeningMs: number }> {
  // The bench's own environment (its allocator settings) goes to the process it measures.
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return startNetviewProcess([`--ovnnb-db=${nbRemote}`, `--ovnsb-db=${sbRemote}`, ...extraArgs], { env });
}
