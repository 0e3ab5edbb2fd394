import { exitCodes } from "../cli/exit-codes.ts";
import type { Logger } from "../log/logger.ts";

export interface ShutdownOptions {
  logger: Logger;
  /** Stops the program's work; its rejection makes the exit status 1 (`fault`, decision 47). */
  stop: (signal: NodeJS.Signals) => Promise<void>;
  exit?: (code: number) => void;
}

/**
 * SIGINT and SIGTERM start one graceful stop and exit 0 when it ends; a second signal during the stop
 * is logged and ignored, so an impatient Ctrl-C cannot cut a drain short. A stop that throws exits 1.
 */
export function exitOnSignal(options: ShutdownOptions): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.logger.warn({ signal }, "already stopping");
      return;
    }
    stopping = true;
    options.logger.info({ signal }, "stopping");
    options.stop(signal).then(
      () => {
        options.logger.info("stopped");
        exit(0);
      },
      (err: unknown) => {
        options.logger.error({ err }, "stop failed");
        exit(exitCodes.fault);
      },
    );
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
}

/**
 * Logs a fatal error and exits 1 (`fault`): the last resort of a process that serves or publishes
 * until stopped, as the spec has it for the Reporting API and the collector (decision 47).
 */
export function exitOnFailure(logger: Logger, message: string): (err: unknown) => never {
  return (err: unknown) => {
    logger.fatal({ err }, message);
    process.exit(exitCodes.fault);
  };
}
