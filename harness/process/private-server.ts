import { Daemon, type DaemonSpec } from "./daemon.ts";
import { freePort, releasePort } from "./free-port.ts";
import { retryOnPortInUse } from "./port-in-use-error.ts";
import { listensOn } from "./process-table.ts";
import { makeTempDir, type TempDir } from "./temp-dir.ts";

/** A private server of the harness: its own temp dir, one free port, its daemon's processes. */
export interface PrivateServer {
  readonly url: string;
  readonly dir: string;
  processes(): number[];
  /** Stops the daemon, frees its port and removes its dir. */
  stop(): Promise<void>;
}

/** How a server is laid out in its dir: its daemon on a port, its URL, and when it serves. */
export interface ServerLayout {
  daemon(port: number): DaemonSpec;
  url(port: number): string;
  /** Asked once the daemon listens on its port. */
  ready(url: string): Promise<boolean>;
}

/**
 * Starts a server in a temp dir named after `label`: `lay` prepares the dir once (an initdb) and says
 * how to run the daemon; the daemon gets a free port, again on a fresh one when another process took
 * it first (`retryOnPortInUse`). A start that fails removes the dir.
 */
export async function startPrivateServer(
  label: string,
  lay: (dir: TempDir) => Promise<ServerLayout> | ServerLayout,
): Promise<PrivateServer> {
  const dir = makeTempDir(label);
  try {
    const layout = await lay(dir);
    const server = await retryOnPortInUse(async () => {
      const port = await freePort();
      const daemon = new Daemon(layout.daemon(port));
      const url = layout.url(port);
      await daemon.waitReady(
        async () => listensOn(daemon.members(), port) && (await layout.ready(url)),
        30_000,
      );
      return { daemon, port, url };
    });
    return {
      url: server.url,
      dir: dir.path,
      processes: () => server.daemon.members(),
      async stop() {
        await server.daemon.stop();
        releasePort(server.port);
        dir.remove();
      },
    };
  } catch (error) {
    dir.remove();
    throw error;
  }
}
