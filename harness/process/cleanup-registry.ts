import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { groupMembers } from "./process-table.ts";
import { startReaper } from "./reaper.ts";

/** Prefix of every dir the harness creates under the system temp dir: `ls /tmp/svc-harness-*` finds leftovers. */
const tempPrefix = "svc-harness-";

// One root dir per process holds every service dir and the reaper's manifest, so a single reaper and
// a single `rm -rf` clean up whatever this process started. The root lives while any dir is leased.
interface Root {
  path: string;
  manifest: string;
  reaper: ChildProcess;
  leases: number;
  groups: Map<number, NodeJS.Signals>;
}

let root: Root | undefined;
let exitHandlerInstalled = false;

function writeManifest(current: Root): void {
  const lines = [...current.groups].map(([pgid, signal]) => `group ${pgid} ${signal.replace(/^SIG/, "")}\n`);
  const temporary = `${current.manifest}.new`;
  writeFileSync(temporary, lines.join(""));
  renameSync(temporary, current.manifest);
}

/**
 * Kills every daemon group this process started, waits briefly for them to go, and removes the root:
 * the last resort when the process exits with services running (an uncaught error, process.exit()),
 * and the way to abandon a start that is still in progress. The reaper covers SIGKILL.
 */
export function killEverything(): void {
  const current = root;
  if (current === undefined) return;
  for (const pgid of current.groups.keys()) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  const deadline = performance.now() + 2000;
  while ([...current.groups.keys()].some((pgid) => groupMembers(pgid).length > 0)) {
    if (performance.now() > deadline) break;
    Bun.sleepSync(20);
  }
  rmSync(current.path, { recursive: true, force: true });
  root = undefined;
}

function ensureRoot(): Root {
  if (root !== undefined) return root;
  const path = mkdtempSync(join(tmpdir(), tempPrefix));
  // Daemons run as their own users (postgres, rabbitmq) and must traverse the root to reach their dirs.
  chmodSync(path, 0o711);
  const manifest = join(path, "reaper-manifest");
  writeFileSync(manifest, "");
  const reaper = startReaper(process.pid, path, manifest);
  root = { path, manifest, reaper, leases: 0, groups: new Map() };
  if (!exitHandlerInstalled) {
    process.on("exit", killEverything);
    exitHandlerInstalled = true;
  }
  return root;
}

/** The process's harness root dir while one exists: every daemon's dir and log is inside it. */
export function currentRoot(): string | undefined {
  return root?.path;
}

/** Takes a lease on the process's harness root dir (created on first use) and returns its path. */
export function leaseRoot(): string {
  const current = ensureRoot();
  current.leases++;
  return current.path;
}

// The root goes once no dir is leased and no daemon runs, whichever comes last.
function removeRootWhenUnused(current: Root): void {
  if (current.leases > 0 || current.groups.size > 0) return;
  rmSync(current.path, { recursive: true, force: true });
  current.reaper.kill("SIGTERM");
  root = undefined;
}

/** Returns a lease; the last one removes the root dir and ends the reaper. */
export function returnRoot(): void {
  const current = root;
  if (current === undefined) return;
  current.leases--;
  removeRootWhenUnused(current);
}

/** Records a running daemon's process group, to be stopped with `signal` if this process dies. */
export function trackGroup(pgid: number, signal: NodeJS.Signals): void {
  const current = ensureRoot();
  current.groups.set(pgid, signal);
  writeManifest(current);
}

/**
 * Records a short-lived command's process group while the process has a harness root (a command run
 * with no service started creates none); true when it was recorded.
 */
export function trackCommand(pgid: number): boolean {
  if (root === undefined) return false;
  trackGroup(pgid, "SIGKILL");
  return true;
}

/** Forgets a process group once it is gone. */
export function untrackGroup(pgid: number): void {
  const current = root;
  if (current === undefined || !current.groups.delete(pgid)) return;
  writeManifest(current);
  removeRootWhenUnused(current);
}
