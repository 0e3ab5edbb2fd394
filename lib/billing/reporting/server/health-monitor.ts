/**
 * Tracks how long the database has been unreachable. Readiness fails while it is; liveness fails only
 * once that has lasted longer than the threshold (SVC_REPORTING_UNHEALTHY_THRESHOLD_S), so an
 * orchestrator restarts a process that stays cut off but not one riding out a database restart.
 */
export class HealthMonitor {
  #unhealthySince: number | null = null;

  constructor(
    private readonly check: () => Promise<void>,
    private readonly options: { thresholdMs: number; checkTimeoutMs?: number; now?: () => number },
  ) {}

  #now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Runs the check and records the outcome; true when the database answered in time. */
  async ready(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("check timed out")), this.options.checkTimeoutMs ?? 3000);
    });
    try {
      await Promise.race([this.check(), timeout]);
      this.#unhealthySince = null;
      return true;
    } catch {
      this.#unhealthySince ??= this.#now();
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** False once unhealthiness has lasted longer than the threshold. */
  live(): boolean {
    return this.#unhealthySince === null || this.#now() - this.#unhealthySince <= this.options.thresholdMs;
  }

  /** Checks every `intervalMs` so liveness tracks the database even when nobody asks for readiness. */
  start(intervalMs: number): () => void {
    void this.ready();
    const timer = setInterval(() => void this.ready(), intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
