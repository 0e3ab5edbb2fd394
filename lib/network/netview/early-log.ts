/**
 * The log netview's database sessions get before pino is loaded (decision 339): the program dials
 * first and loads pino while the servers build their replies, so what a session logs in between
 * (a refused connection, a retry) is kept and handed to the real logger once `bind` gives it.
 */
import type { OvsdbLogger } from "../ovsdb/ovsdb-client.ts";

interface EarlyLog {
  log: OvsdbLogger;
  bind(real: OvsdbLogger): void;
}

export function earlyLog(): EarlyLog {
  let real: OvsdbLogger | undefined;
  const kept: { level: keyof OvsdbLogger; object: object; message: string }[] = [];
  const at =
    (level: keyof OvsdbLogger) =>
    (object: object, message: string): void => {
      if (real === undefined) kept.push({ level, object, message });
      else real[level](object, message);
    };
  return {
    log: { info: at("info"), warn: at("warn") },
    bind(logger) {
      real = logger;
      for (const entry of kept.splice(0)) logger[entry.level](entry.object, entry.message);
    },
  };
}
