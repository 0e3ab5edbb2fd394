import { readFileSync } from "node:fs";

/** The parent's pid as the kernel has it now: Bun's `process.ppid` is read once, at start. */
export function currentParentPid(stat: string = readFileSync("/proc/self/stat", "utf8")): number {
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so fields count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[1]);
}

/**
 * Calls `gone` once the process that started this one has ended (its children are then adopted by
 * another). A worker started by a coordinator must not outlive it: a coordinator killed mid-run leaves
 * no worker writing rows of a run nobody will finish (decision 470). The check does not hold the
 * process open. Linux only (`/proc`), as the engine's deployment is.
 */
export function whenParentGone(gone: () => void, everyMs = 500): () => void {
  const parent = currentParentPid();
  const timer = setInterval(() => {
    if (currentParentPid() !== parent) {
      clearInterval(timer);
      gone();
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
