import pino, { type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "./log-levels.ts";
import { redact, redactUrlCredentials } from "./redact.ts";

export type { Logger };

/** The spec's level names and pino's. */
const pinoLevel: Record<LogLevel, pino.Level> = {
  DEBUG: "debug",
  INFO: "info",
  WARN: "warn",
  ERROR: "error",
};

export interface LoggerOptions {
  /** Written as `service` on every line, e.g. `svc-reporting`. */
  service: string;
  level: LogLevel;
  /** Defaults to stdout; tests pass a stream to read the lines. */
  destination?: DestinationStream;
}

/**
 * JSON lines, one per entry, with `service`, an ISO `time` and the level's name. No transports (they
 * run in worker threads, which Bun does not support for pino). Every merged object and message is
 * redacted, so a secret put into a log call by mistake is masked anyway.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: pinoLevel[options.level],
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: "msg",
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => redact(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const redacted = args.map((a) => (typeof a === "string" ? redactUrlCredentials(a) : a));
          method.apply(this, redacted as Parameters<typeof method>);
        },
      },
      serializers: { err: (e: unknown) => redact(e), error: (e: unknown) => redact(e) },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
