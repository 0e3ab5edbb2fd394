import { join } from "node:path";
import { Daemon } from "../process/daemon.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { listensOn } from "../process/process-table.ts";
import { makeTempDir } from "../process/temp-dir.ts";

/** VictoriaMetrics for tests: private (started here) or external (`SVC_TEST_VM_URL`). */
export interface VictoriaMetricsService {
  /** Base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly external: boolean;
  readonly dir: string | undefined;
  /** Flushes buffered samples; a new series still becomes searchable only about a second later (1.79): poll. */
  flush(): Promise<void>;
  processes(): number[];
  stop(): Promise<void>;
}

async function healthy(url: string): Promise<boolean> {
  const response = await fetch(`${url}/health`);
  return response.ok;
}

async function startPrivate(): Promise<VictoriaMetricsService> {
  const dir = makeTempDir("victoria-metrics");
  try {
    const data = dir.sub("data");
    const server = await retryOnPortInUse(async () => {
      const port = await freePort();
      const daemon = new Daemon({
        name: "victoria-metrics",
        command: "/usr/bin/victoria-metrics",
        args: [
          `-storageDataPath=${data}`,
          `-httpListenAddr=127.0.0.1:${port}`,
          // Tests read what they just wrote: the default 30 s offset would hide fresh samples.
          "-search.latencyOffset=0s",
          "-search.disableCache",
          "-retentionPeriod=100y",
          "-loggerLevel=WARN",
        ],
        logFile: join(dir.path, "victoria-metrics.log"),
        cwd: dir.path,
      });
      const url = `http://127.0.0.1:${port}`;
      await daemon.waitReady(async () => listensOn(daemon.members(), port) && (await healthy(url)), 30_000);
      return { daemon, port, url };
    });
    return {
      url: server.url,
      external: false,
      dir: dir.path,
      flush: async () => {
        await fetch(`${server.url}/internal/force_flush`);
      },
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

/** Starts a private VictoriaMetrics, or uses `SVC_TEST_VM_URL` when it is set. */
export async function startVictoriaMetrics(
  env: Record<string, string | undefined> = process.env,
): Promise<VictoriaMetricsService> {
  const external = env.SVC_TEST_VM_URL;
  if (external === undefined || external === "") return startPrivate();
  const url = external.replace(/\/$/, "");
  return {
    url,
    external: true,
    dir: undefined,
    flush: async () => {
      await fetch(`${url}/internal/force_flush`);
    },
    processes: () => [],
    stop: async () => {},
  };
}
