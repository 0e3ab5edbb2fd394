/**
 * The clustered stack (issue 35): Patroni with two PostgreSQL nodes on etcd behind HAProxy, a
 * three-node RabbitMQ cluster mirroring the run's vhost, two Reporting APIs behind a second HAProxy,
 * and two collectors consuming the same queue, each given every node's URL starting at a different
 * one. The programs are ours, run as their own processes; the engines are Debian's.
 */
import { join } from "node:path";
import { declaredExchanges } from "../../lib/billing/simulator/notification-line.ts";
import { type CollectorProcess, collectorProcess } from "../collector/collector-process.ts";
import { declareExchanges } from "../collector/publisher.ts";
import { releasePort } from "../process/free-port.ts";
import type { RestartableDaemon } from "../process/restartable-daemon.ts";
import { makeTempDir } from "../process/temp-dir.ts";
import { waitFor } from "../process/wait-for.ts";
import { type Haproxy, startHaproxy } from "../services/haproxy.ts";
import { type PostgresCluster, startPostgresCluster } from "../services/patroni.ts";
import { type RabbitmqCluster, startRabbitmqCluster } from "../services/rabbitmq-cluster.ts";
import { uniqueName } from "../services/unique-name.ts";
import type { Programs } from "./programs.ts";
import { prepareDatabases, type ScenarioDatabases, startReporting } from "./stack-programs.ts";

/** One Reporting API replica behind HAProxy. */
export interface Replica {
  readonly name: string;
  /** Its own URL (not through HAProxy). */
  readonly url: string;
  readonly daemon: RestartableDaemon;
}

export interface ClusterStack extends ScenarioDatabases {
  postgres: PostgresCluster;
  rabbitmq: RabbitmqCluster;
  /** The run's vhost on each node, in node order. */
  amqpUrls: string[];
  /** HAProxy's listener for the Reporting API: what the collectors and the simulator call. */
  reportingUrl: string;
  replicas: Replica[];
  collectors: CollectorProcess[];
  internalToken: string;
  /** Milliseconds each part took to start. */
  startMs: { postgres: number; rabbitmq: number; programs: number };
  /** Stops the programs, then the engines, removing their dirs; safe to call twice. */
  stop(): Promise<void>;
}

/** The node URLs starting at the `first`-th, so that two collectors begin on different nodes. */
function rotated(urls: readonly string[], first: number): string {
  return [...urls.slice(first), ...urls.slice(0, first)].join(",");
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const begin = performance.now();
  const value = await work();
  return [value, Math.round(performance.now() - begin)];
}

/**
 * Starts the clustered stack for `cloud`: the engines in parallel, the databases (migrated, with the
 * ingest credential and an admin token issued by our programs), the replicas and HAProxy as soon as
 * PostgreSQL is up, then the vhost and its exchanges and the collectors once RabbitMQ is.
 * A failure stops whatever had started.
 */
export async function startClusterStack(options: {
  programs: Programs;
  cloud: string;
  /** More variables for the Reporting API replicas. */
  reportingEnv?: Record<string, string> | undefined;
}): Promise<ClusterStack> {
  const { programs } = options;
  const dir = makeTempDir("cluster-stack");
  let postgres: PostgresCluster | undefined;
  let rabbitmq: RabbitmqCluster | undefined;
  let haproxy: Haproxy | undefined;
  let rabbitmqStart: Promise<[RabbitmqCluster, number]> | undefined;
  const replicas: (Replica & { port: number })[] = [];
  const collectors: CollectorProcess[] = [];
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      for (const collector of collectors) {
        await collector.daemon.stop();
        releasePort(collector.port);
      }
      await haproxy?.stop();
      for (const replica of replicas) {
        await replica.daemon.stop();
        releasePort(replica.port);
      }
      await Promise.allSettled([postgres?.stop(), rabbitmq?.stop()]);
      dir.remove();
    })();
    return stopped;
  };
  try {
    // RabbitMQ's three nodes take longest (one boots alone, then the other two): the databases and
    // the Reporting APIs are set up on Patroni's primary meanwhile.
    rabbitmqStart = timed(() => startRabbitmqCluster({ size: 3 })).then((started) => {
      rabbitmq = started[0];
      return started;
    });
    // Awaited below, or by the failure path: a failure meanwhile must not count as unhandled.
    rabbitmqStart.catch(() => {});
    const [pg, postgresMs] = await timed(() => startPostgresCluster({ size: 2 }));
    postgres = pg;
    const began = performance.now();
    const databases = await prepareDatabases({
      programs,
      postgres: pg,
      cloud: options.cloud,
      // The faults read through the API with it while the database fails over.
      admin: true,
    });
    const internalToken = uniqueName("internal");
    for (const name of ["reporting-1", "reporting-2"]) {
      const started = await startReporting(
        programs,
        {
          SVC_REPORTING_DB_URL: databases.reportingDbUrl,
          SVC_REPORTING_INTERNAL_TOKEN: internalToken,
          SVC_LOG_LEVEL: "INFO",
          ...options.reportingEnv,
        },
        join(programs.logs, `${name}.log`),
      );
      replicas.push({ name, ...started });
    }
    haproxy = await startHaproxy(dir, [
      {
        name: "reporting",
        mode: "http",
        check: "/healthz",
        servers: replicas.map((r) => ({ name: r.name, port: r.port })),
      },
    ]);
    const reportingUrl = `http://127.0.0.1:${haproxy.ports.reporting}`;
    const programsMs = performance.now() - began;
    const [mq, rabbitmqMs] = await rabbitmqStart;
    const collectorsBegan = performance.now();
    const amqpUrls = await mq.createVhost(uniqueName("scenario"));
    // The platform's services declare their exchanges at their start, before any collector binds.
    await declareExchanges(amqpUrls[0] as string, declaredExchanges);
    await startCollectors(collectors, {
      logs: programs.logs,
      amqpUrls,
      reportingUrl,
      token: databases.ingestSecret,
      cloud: options.cloud,
    });
    return {
      ...databases,
      postgres: pg,
      rabbitmq: mq,
      amqpUrls,
      reportingUrl,
      replicas,
      collectors,
      internalToken,
      startMs: {
        postgres: postgresMs,
        rabbitmq: rabbitmqMs,
        programs: Math.round(programsMs + performance.now() - collectorsBegan),
      },
      stop,
    };
  } catch (error) {
    // A cluster still booting is stopped once it is up, not left behind.
    await rabbitmqStart?.catch(() => {});
    await stop().catch(() => {});
    throw error;
  }
}

/** Two competing collectors, one per broker URL in turn, each started and then all ready. */
async function startCollectors(
  collectors: CollectorProcess[],
  options: { logs: string; amqpUrls: string[]; reportingUrl: string; token: string; cloud: string },
): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const collector = await collectorProcess({
      dir: options.logs,
      amqpUrl: rotated(options.amqpUrls, i),
      api: { url: options.reportingUrl, token: options.token, cloud: options.cloud },
    });
    collectors.push(collector);
    await collector.daemon.start();
  }
  await waitFor(
    async () => {
      for (const c of collectors) if ((await c.get("/readyz")).status !== 200) return false;
      return true;
    },
    {
      timeoutMs: 30_000,
      onTimeout: () => new Error(`the collectors were not ready after 30 s (log: ${options.logs})`),
    },
  );
}
