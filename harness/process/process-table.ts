import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// Readers of /proc. A process group outlives its leader (children keep running), and zombies still
// answer kill(pid, 0): only /proc tells which members are really alive and which sockets they listen on.

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may contain spaces: the fields follow its last ")".
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, state: rest[0] ?? "?", ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

function allPids(): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

function liveStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const pid of allPids()) {
    const stat = readStat(pid);
    if (stat !== undefined && stat.state !== "Z" && stat.state !== "X") stats.push(stat);
  }
  return stats;
}

/** Live (not zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  return liveStats()
    .filter((stat) => stat.pgrp === pgid)
    .map((stat) => stat.pid);
}

/**
 * Live members of the group led by `leader` plus the leader's live descendants: some daemons put
 * their children in groups of their own (postgres makes each backend a group leader).
 */
export function familyOf(leader: number): number[] {
  const stats = liveStats();
  const family = new Set(stats.filter((stat) => stat.pgrp === leader).map((stat) => stat.pid));
  let grown = true;
  while (grown) {
    grown = false;
    for (const stat of stats) {
      if (!family.has(stat.pid) && family.has(stat.ppid)) {
        family.add(stat.pid);
        grown = true;
      }
    }
  }
  return [...family];
}

/**
 * `pid` and its live descendants, whatever their groups: a daemon that another one double-forked (the
 * postmaster Patroni starts is a child of init, in a session of its own) is found by its pid.
 */
export function treeOf(pid: number): number[] {
  const stats = liveStats();
  if (!stats.some((stat) => stat.pid === pid)) return [];
  const tree = new Set([pid]);
  let grown = true;
  while (grown) {
    grown = false;
    for (const stat of stats) {
      if (!tree.has(stat.pid) && tree.has(stat.ppid)) {
        tree.add(stat.pid);
        grown = true;
      }
    }
  }
  return [...tree];
}

/** The process group of a live `pid`, undefined once it is gone. */
export function groupOf(pid: number): number | undefined {
  return readStat(pid)?.pgrp;
}

/** Whether `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = readStat(pid);
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // fields: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const local = fields[1];
      if (local === undefined || fields[3] !== "0A") continue;
      if (local.slice(local.indexOf(":") + 1) === hexPort && fields[9] !== undefined) inodes.add(fields[9]);
    }
  }
  return inodes;
}

/** Whether one of `pids` holds a socket listening on TCP `port`: proof the daemon we started owns it. */
export function listensOn(pids: readonly number[], port: number): boolean {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return false;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const link = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (link.startsWith("socket:[") && inodes.has(link.slice(8, -1))) return true;
      } catch {
        // The descriptor closed while we looked.
      }
    }
  }
  return false;
}

/** Live processes whose working directory is `dir` or inside it: every harness daemon runs in its dir. */
export function processesUnder(dir: string): number[] {
  const found: number[] = [];
  for (const stat of liveStats()) {
    try {
      const cwd = readlinkSync(`/proc/${stat.pid}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(stat.pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Clock ticks per second of /proc's CPU times: USER_HZ, 100 on every Linux architecture we run on. */
const userHz = 100;

/** What a process has used so far: CPU seconds in user and kernel mode, and minor page faults. */
export interface Usage {
  user: number;
  system: number;
  minorFaults: number;
}

/** The usage (all threads) of each live process of `pids`. */
function usageOf(pids: readonly number[]): Map<number, Usage> {
  const out = new Map<number, Usage>();
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name: state is the 3rd field of stat, minflt the 10th, utime the 14th,
      // stime the 15th.
      const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
      out.set(pid, {
        user: Number(rest[11]) / userHz,
        system: Number(rest[12]) / userHz,
        minorFaults: Number(rest[7]),
      });
    } catch {
      // Gone since it was listed.
    }
  }
  return out;
}

/**
 * The usage of `pids()` from now until `stop()`, counting processes that start in between (from
 * zero). Processes that exit in between are not counted: a bench reads this, not a bill.
 */
export function usageMeter(pids: () => readonly number[]): { stop(): Usage } {
  const before = usageOf(pids());
  return {
    stop() {
      const spent: Usage = { user: 0, system: 0, minorFaults: 0 };
      for (const [pid, now] of usageOf(pids())) {
        const then = before.get(pid);
        spent.user += now.user - (then?.user ?? 0);
        spent.system += now.system - (then?.system ?? 0);
        spent.minorFaults += now.minorFaults - (then?.minorFaults ?? 0);
      }
      return spent;
    },
  };
}

/** CPU seconds `pids()` spend from now until `stop()` (`usageMeter`, user and system together). */
export function cpuMeter(pids: () => readonly number[]): { stop(): number } {
  const meter = usageMeter(pids);
  return {
    stop() {
      const { user, system } = meter.stop();
      return user + system;
    },
  };
}

/**
 * CPU seconds `pids` have used so far, with the children each has reaped (a server's exited workers,
 * counted by /proc in their parent's `cutime`/`cstime`): the difference of two readings over a server's
 * processes is all the CPU it spent between them, whoever came and went.
 */
export function familyCpuSeconds(pids: readonly number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      // utime, stime, cutime and cstime are the 14th to 17th fields of stat.
      const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
      total += Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]);
    } catch {
      // Gone since it was listed.
    }
  }
  return total / userHz;
}

/** Seconds of CPU `pid` has used, user and system (/proc counts in ticks of 1/100 s); 0 once gone. */
export function cpuSeconds(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // After the state: utime and stime are the 12th and 13th fields.
    return (Number(rest[11]) + Number(rest[12])) / 100;
  } catch {
    return 0;
  }
}
