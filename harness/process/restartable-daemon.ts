import { Daemon, type DaemonSpec } from "./daemon.ts";

/** What a fault test may do to one daemon of a service. */
export interface DaemonControl {
  readonly name: string;
  readonly running: boolean;
  readonly pid: number | undefined;
  members(): number[];
  start(): Promise<void>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * One daemon of a service that fault tests stop, kill and start again with the same arguments,
 * ports and files (a chassis's ovsdb-server, the NB server).
 */
export class RestartableDaemon implements DaemonControl {
  private current: Daemon | undefined;

  constructor(
    private readonly spec: DaemonSpec,
    private readonly ready: (daemon: Daemon) => boolean | Promise<boolean>,
    private readonly timeoutMs = 20_000,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  get running(): boolean {
    return this.current?.running ?? false;
  }

  /** Pid of the running daemon (its process group id too). */
  get pid(): number | undefined {
    return this.current?.running ? this.current.pid : undefined;
  }

  /** Live processes of the running daemon. */
  members(): number[] {
    return this.current?.members() ?? [];
  }

  /** Starts it and waits until it is ready; starting a running daemon is a mistake. */
  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const daemon = new Daemon(this.spec);
    await daemon.waitReady(() => this.ready(daemon), this.timeoutMs);
    this.current = daemon;
  }

  /** Orderly stop (no-op when not running). */
  async stop(): Promise<void> {
    await this.current?.stop();
    this.current = undefined;
  }

  /** SIGKILL, as a crash would. */
  async kill(): Promise<void> {
    await this.current?.kill();
    this.current = undefined;
  }
}
