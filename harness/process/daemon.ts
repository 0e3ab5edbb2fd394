import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, statSync } from "node:fs";
import { trackGroup, untrackGroup } from "./cleanup-registry.ts";
import { PortInUseError } from "./port-in-use-error.ts";
import { familyOf } from "./process-table.ts";
import type { SystemUser } from "./temp-dir.ts";
import { waitFor } from "./wait-for.ts";

export interface DaemonSpec {
  /** Short name used in errors ("postgres", "ovn-nb ovsdb-server"). */
  name: string;
  command: string;
  args: readonly string[];
  /** Its stdout and stderr are appended here. */
  logFile: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Runs the daemon as this user (through setpriv, which execs, so the pid stays the daemon's). */
  user?: SystemUser;
  /** The signal for an orderly stop (postgres wants SIGINT: SIGTERM waits for clients to leave). */
  stopSignal?: NodeJS.Signals;
  /** Further log files to quote when it fails (a daemon's own --log-file). */
  extraLogs?: readonly string[];
}

interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const bindFailure = /address already in use|eaddrinuse|could not bind/i;

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function readFrom(file: string, offset: number): string {
  try {
    return readFileSync(file).subarray(offset).toString("utf8");
  } catch {
    return "";
  }
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

/**
 * A child process in a process group of its own, so that stopping it also stops what it forked, and
 * so that a Ctrl-C at the terminal reaches the harness (which stops it in order) and not the daemon.
 * Its group is in the cleanup manifest while it runs.
 */
export class Daemon {
  readonly pid: number;
  readonly exited: Promise<ExitStatus>;
  private status: ExitStatus | undefined;
  // Where this run's output starts in each log: a restarted daemon appends to the logs of earlier runs.
  private readonly logOffsets: Map<string, number>;

  constructor(readonly spec: DaemonSpec) {
    this.logOffsets = new Map(this.logFiles().map((file) => [file, sizeOf(file)]));
    const log = openSync(spec.logFile, "a");
    const [command, args] =
      spec.user === undefined
        ? [spec.command, spec.args]
        : [
            "setpriv",
            [
              `--reuid=${spec.user.uid}`,
              `--regid=${spec.user.gid}`,
              "--init-groups",
              "--",
              spec.command,
              ...spec.args,
            ],
          ];
    const child = spawn(command, args, {
      detached: true,
      stdio: ["ignore", log, log],
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
    });
    closeSync(log);
    // A failed spawn (missing binary) is also emitted as an event, which would crash the process unheard.
    let spawnError: Error | undefined;
    child.once("error", (error) => {
      spawnError = error;
    });
    if (child.pid === undefined) {
      throw new Error(
        `${spec.name}: could not start ${command}${spawnError ? `: ${spawnError.message}` : ""}`,
      );
    }
    this.pid = child.pid;
    trackGroup(this.pid, this.stopSignal);
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.status = { code, signal };
        resolve(this.status);
      });
    });
    child.unref();
  }

  get name(): string {
    return this.spec.name;
  }

  private get stopSignal(): NodeJS.Signals {
    return this.spec.stopSignal ?? "SIGTERM";
  }

  get running(): boolean {
    return this.status === undefined;
  }

  /** Its live processes: its process group and its descendants. */
  members(): number[] {
    return familyOf(this.pid);
  }

  private logFiles(): string[] {
    return [this.spec.logFile, ...(this.spec.extraLogs ?? [])];
  }

  /** What this run of the daemon has logged so far. */
  private freshLog(): string {
    return this.logFiles()
      .map((file) => readFrom(file, this.logOffsets.get(file) ?? 0))
      .join("\n");
  }

  /** The last lines of its logs, for error messages. */
  logTail(lines = 20): string {
    return this.logFiles()
      .map((file) => `--- ${file}\n${tail(file, lines)}`)
      .join("\n");
  }

  /**
   * Waits until `ready()` holds. Fails with the log's tail when the daemon exits first or the time is
   * up, and with `PortInUseError` when its log says a port was taken (the caller retries elsewhere).
   */
  async waitReady(ready: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
    const failure = (why: string): Error => {
      const message = `${this.name} ${why}\n${this.logTail()}`;
      return bindFailure.test(this.freshLog()) ? new PortInUseError(message) : new Error(message);
    };
    let failed: Error | undefined;
    try {
      await waitFor(
        async () => {
          if (this.status !== undefined) {
            failed = failure(
              `exited (code ${this.status.code}, signal ${this.status.signal}) before it was ready`,
            );
            return true;
          }
          try {
            if (await ready()) return true;
          } catch {
            // Not ready yet.
          }
          // Some daemons (ovsdb-server) keep running when a port is taken: fail fast on their word.
          if (bindFailure.test(this.freshLog())) {
            failed = failure("could not bind its port");
            return true;
          }
          return false;
        },
        { timeoutMs, onTimeout: () => failure(`was not ready after ${timeoutMs} ms`) },
      );
    } catch (timeout) {
      failed = timeout instanceof Error ? timeout : new Error(String(timeout));
    }
    if (failed !== undefined) {
      await this.stop();
      throw failed;
    }
  }

  /** Orderly stop: the stop signal to the group, then SIGKILL after `graceMs`; resolves when all are gone. */
  async stop(graceMs = 5000): Promise<void> {
    this.signalGroup(this.stopSignal);
    const gone = await this.waitGone(graceMs);
    if (!gone) {
      this.signalGroup("SIGKILL");
      await this.waitGone(5000);
    }
    untrackGroup(this.pid);
  }

  /** Abrupt stop (fault tests): SIGKILL to the whole group. */
  async kill(): Promise<void> {
    this.signalGroup("SIGKILL");
    await this.waitGone(5000);
    untrackGroup(this.pid);
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  private async waitGone(timeoutMs: number): Promise<boolean> {
    try {
      await waitFor(() => this.status !== undefined && this.members().length === 0, {
        timeoutMs,
        intervalMs: 25,
        onTimeout: () => new Error("still running"),
      });
      return true;
    } catch {
      return false;
    }
  }
}
