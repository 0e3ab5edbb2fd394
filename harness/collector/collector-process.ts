/**
 * `cmd/collector.ts` as its own process, the way the scenario runner and an operator run it, for the
 * end-to-end and fault tests: started again with the same environment after a stop or a SIGKILL, its
 * JSON log lines read back from its output file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expositionTotal } from "../../lib/foundation/metrics/exposition-total.ts";
import { serviceAllocatorEnv } from "../../lib/foundation/process/allocator-env.ts";
import { freePort } from "../process/free-port.ts";
import { RestartableDaemon } from "../process/restartable-daemon.ts";
import { until } from "./until.ts";

export interface CollectorProcess {
  readonly port: number;
  readonly outboxPath: string;
  readonly daemon: RestartableDaemon;
  /** Every JSON line logged so far, across restarts. */
  logLines(): Record<string, unknown>[];
  get(path: string): Promise<{ status: number; text: string }>;
}

const root = join(import.meta.dir, "../..");

/** The exchanges the collector process binds: the defaults and the load-balancer service's. */
export const collectorExchanges = ["nova", "neutron", "platform_a", "glance", "octavia"] as const;

/** Where a collector posts: the Reporting API's URL, the ingest token and the cloud it is for. */
export interface CollectorTarget {
  url: string;
  token: string;
  cloud: string;
}

/** A collector posting to `api` from the vhost `amqpUrl`, its outbox and log in `dir`. */
export interface CollectorOptions {
  dir: string;
  amqpUrl: string;
  api: CollectorTarget;
  /** More variables, over the harness's. */
  env?: Record<string, string>;
}

/** A collector process, not started. */
export async function collectorProcess(options: CollectorOptions): Promise<CollectorProcess> {
  const port = await freePort();
  const outboxPath = join(options.dir, `outbox-${port}.sqlite`);
  const logFile = join(options.dir, `collector-${port}.log`);
  const base = `http://127.0.0.1:${port}`;
  const daemon = new RestartableDaemon(
    {
      name: "collector",
      command: process.execPath,
      args: [join(root, "cmd/collector.ts")],
      logFile,
      cwd: root,
      env: {
        ...serviceAllocatorEnv(),
        SVC_OSC_AMQP_URL: options.amqpUrl,
        SVC_OSC_REPORTING_URL: options.api.url,
        SVC_OSC_REPORTING_INSECURE: "true",
        SVC_OSC_INGEST_TOKEN: options.api.token,
        SVC_OSC_CLOUD: options.api.cloud,
        SVC_OSC_OUTBOX_PATH: outboxPath,
        SVC_OSC_QUEUE_TYPE: "classic",
        SVC_OSC_EXCHANGES: collectorExchanges.join(","),
        SVC_OSC_HTTP_PORT: String(port),
        SVC_OSC_SUMMARY_INTERVAL_S: "1",
        ...options.env,
      },
    },
    async () => (await fetch(`${base}/healthz`).catch(() => null))?.status === 200,
    30_000,
  );
  return {
    port,
    outboxPath,
    daemon,
    logLines() {
      let text = "";
      try {
        text = readFileSync(logFile, "utf8");
      } catch {
        return [];
      }
      return text
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    async get(path) {
      const response = await fetch(`${base}${path}`);
      return { status: response.status, text: await response.text() };
    },
  };
}

/** A collector process posting to `api` from the vhost `amqpUrl`, started and ready (`/readyz` 200). */
export async function readyCollector(options: CollectorOptions): Promise<CollectorProcess> {
  const collector = await collectorProcess(options);
  await collector.daemon.start();
  await until(
    async () => (await collector.get("/readyz")).status,
    (s) => s === 200,
  );
  return collector;
}

/** Waits until the API stores at least `events` rows and the collector's outbox is empty. */
export async function untilDelivered(
  collector: CollectorProcess,
  api: { storedEvents(): Promise<unknown[]> },
  events: number,
): Promise<void> {
  await until(
    () => api.storedEvents(),
    (stored) => stored.length >= events,
  );
  await until(
    async () => (await collector.get("/metrics")).text,
    (m) => expositionTotal(m, "svc_collector_buffer_depth") === 0,
  );
}
