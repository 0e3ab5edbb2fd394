/**
 * The spec's level names (exact case), apart from the logger so that reading `SVC_LOG_LEVEL` does not
 * load pino: netview dials its databases before it loads pino (decision 339).
 */
export const logLevels = ["DEBUG", "INFO", "WARN", "ERROR"] as const;
export type LogLevel = (typeof logLevels)[number];
