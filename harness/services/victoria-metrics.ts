import { join } from "node:path";
import { type PrivateServer, startPrivateServer } from "../process/private-server.ts";

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
  const server = await startPrivateServer("victoria-metrics", (dir) => {
    const data = dir.sub("data");
    return {
      daemon: (port) => ({
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
      }),
      url: (port) => `http://127.0.0.1:${port}`,
      ready: healthy,
    };
  });
  return serviceOn(server.url, server);
}

/** The service on a server at `url`: a private one (`server`) or an external one (nothing to stop). */
function serviceOn(url: string, server: PrivateServer | undefined): VictoriaMetricsService {
  return {
    url,
    external: server === undefined,
    dir: server?.dir,
    flush: async () => {
      await fetch(`${url}/internal/force_flush`);
    },
    processes: () => server?.processes() ?? [],
    stop: async () => server?.stop(),
  };
}

/** Starts a private VictoriaMetrics, or uses `SVC_TEST_VM_URL` when it is set. */
export async function startVictoriaMetrics(
  env: Record<string, string | undefined> = process.env,
): Promise<VictoriaMetricsService> {
  const external = env.SVC_TEST_VM_URL;
  if (external === undefined || external === "") return startPrivate();
  return serviceOn(external.replace(/\/$/, ""), undefined);
}
