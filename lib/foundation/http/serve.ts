import type { Logger } from "../log/logger.ts";
import { exitOnSignal } from "../process/shutdown.ts";

export const shutdownGraceMs = 10_000;

export interface ServeOptions {
  hostname: string;
  port: number;
  logger: Logger;
  /** Closes what the server used (pools, connections) after the last request. */
  close?: () => Promise<void>;
  graceMs?: number;
}

/** What serve needs of an app: any Elysia instance fits, whatever its generic parameters. */
export interface Listenable {
  listen(options: { hostname: string; port: number }): unknown;
  readonly server: {
    readonly port?: number | undefined;
    stop(closeActiveConnections?: boolean): Promise<void>;
  } | null;
}

/**
 * Listens, and on SIGINT/SIGTERM stops accepting, gives in-flight requests the grace period (10 s),
 * closes what the server used and exits 0. Failing to listen throws, so main exits 1 (decision 47).
 */
export function serve(app: Listenable, options: ServeOptions): { port: number } {
  exitOnSignal({
    logger: options.logger,
    stop: async () => {
      const server = app.server;
      if (server === null) return;
      const grace = options.graceMs ?? shutdownGraceMs;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<"expired">((resolve) => {
        timer = setTimeout(() => resolve("expired"), grace);
      });
      const outcome = await Promise.race([server.stop(false).then(() => "drained" as const), expired]);
      clearTimeout(timer);
      if (outcome === "expired") {
        options.logger.warn(
          { grace_ms: grace },
          "in-flight requests outlived the grace period; closing them",
        );
        await server.stop(true);
      }
      await options.close?.();
    },
  });
  // Signal handlers go in before the listener, so a signal that arrives as soon as the port is open
  // still finds them.
  app.listen({ hostname: options.hostname, port: options.port });
  const server = app.server;
  if (server === null || server.port === undefined) throw new Error("the listener did not start");
  options.logger.info({ hostname: options.hostname, port: server.port }, "listening");
  return { port: server.port };
}
