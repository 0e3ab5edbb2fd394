import { declaredExchanges } from "../../lib/billing/simulator/notification-line.ts";
import { type CollectorProcess, collectorProcess } from "../collector/collector-process.ts";
import { declareExchanges } from "../collector/publisher.ts";
import { releasePort } from "../process/free-port.ts";
import type { DaemonControl, RestartableDaemon } from "../process/restartable-daemon.ts";
import { waitFor } from "../process/wait-for.ts";
import type { RabbitmqService } from "../services/rabbitmq.ts";
import { type ServiceName, startServices } from "../services/services.ts";
import { uniqueName } from "../services/unique-name.ts";
import { type ClusterStack, startClusterStack } from "./cluster-stack.ts";
import type { Programs } from "./programs.ts";
import { prepareDatabases, startReporting } from "./stack-programs.ts";

/** The services and the long-running programs of one scenario run, and what the short-lived ones read. */
export interface ScenarioStack {
  reportingDbUrl: string;
  engineDbUrl: string;
  vmUrl: string;
  /** The Reporting API, `http://127.0.0.1:<port>`. */
  reportingUrl: string;
  /** Its process: stopped and started again on the same port by the outage stage. */
  reporting: DaemonControl;
  /** The ingest credential of (platform_a, cloud), as the collector would hold it. */
  ingestSecret: string;
  /** The internal token the Reporting API was started with. */
  internalToken: string;
  /** With `admin`: an API token of role admin, issued with `reporting-admin token issue`. */
  adminToken?: string;
  /**
   * With the broker path: the run's vhost on RabbitMQ and the collector consuming it (on a cluster,
   * every node's URL comma-separated, and the first collector).
   */
  broker?: { amqpUrl: string; collector: CollectorProcess };
  /** With `cluster`: the clustered stack whose parts the fault stage kills. */
  cluster?: ClusterStack;
  /** Milliseconds each service took to start. */
  startMs: Partial<Record<ServiceName, number>>;
  /** Stops the programs, then the services, removing their dirs; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL and VictoriaMetrics (from the harness), creates and migrates the reporting and
 * engine databases with our own programs, issues the ingest credential for `cloud` with
 * `reporting-admin`, and starts the Reporting API as a process with authentication enforced; with
 * `broker`, RabbitMQ too and the collector as a process posting to that API with the credential.
 * A failure stops whatever had started.
 */
export async function startScenarioStack(options: {
  programs: Programs;
  cloud: string;
  /** Also RabbitMQ (a vhost of the run's own, the platform's exchanges declared) and the collector. */
  broker: boolean;
  /** Also an API token of role admin, for the registry routes. */
  admin?: boolean;
  env?: Record<string, string | undefined>;
  /** More variables for the Reporting API (the sync stages' clouds files and settings). */
  reportingEnv?: Record<string, string> | undefined;
  /** The clustered stack instead (implies the broker): `cluster-stack.ts`. */
  cluster?: boolean;
}): Promise<ScenarioStack> {
  if (options.cluster === true) return startClusteredScenarioStack(options);
  const { programs } = options;
  const services = await startServices({
    only: options.broker ? ["postgres", "victoriaMetrics", "rabbitmq"] : ["postgres", "victoriaMetrics"],
    env: options.env ?? process.env,
  });
  let reporting: { daemon: RestartableDaemon; port: number; url: string } | undefined;
  let collector: CollectorProcess | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      // The collector first: it posts to the Reporting API until it stops.
      if (collector !== undefined) {
        await collector.daemon.stop();
        releasePort(collector.port);
      }
      if (reporting !== undefined) {
        await reporting.daemon.stop();
        releasePort(reporting.port);
      }
      await services.stop();
    })();
    return stopped;
  };
  try {
    const { postgres, victoriaMetrics } = services;
    if (postgres === undefined || victoriaMetrics === undefined)
      throw new Error("the services did not start");
    const { reportingDbUrl, engineDbUrl, ingestSecret, adminToken } = await prepareDatabases({
      programs,
      postgres,
      cloud: options.cloud,
      admin: options.admin === true,
    });
    const internalToken = uniqueName("internal");
    reporting = await startReporting(programs, {
      SVC_REPORTING_DB_URL: reportingDbUrl,
      SVC_REPORTING_INTERNAL_TOKEN: internalToken,
      SVC_LOG_LEVEL: "INFO",
      ...options.reportingEnv,
    });
    let broker: ScenarioStack["broker"];
    if (options.broker) {
      const amqpUrl = await (services.rabbitmq as RabbitmqService).createVhost(uniqueName("scenario"));
      // The platform's services declare their exchanges at their start, before any collector binds.
      await declareExchanges(amqpUrl, declaredExchanges);
      collector = await collectorProcess({
        dir: programs.logs,
        amqpUrl,
        api: { url: reporting.url, token: ingestSecret, cloud: options.cloud },
      });
      await collector.daemon.start();
      const started = collector;
      await waitFor(async () => (await started.get("/readyz")).status === 200, {
        timeoutMs: 30_000,
        onTimeout: () => new Error(`the collector was not ready after 30 s (log: ${programs.logs})`),
      });
      broker = { amqpUrl, collector };
    }
    return {
      ...(broker === undefined ? {} : { broker }),
      ...(adminToken === undefined ? {} : { adminToken }),
      reportingDbUrl,
      engineDbUrl,
      vmUrl: victoriaMetrics.url,
      reportingUrl: reporting.url,
      reporting: reporting.daemon,
      ingestSecret,
      internalToken,
      startMs: services.startMs,
      stop,
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

/** The clustered stack beside a VictoriaMetrics of the run's own, as the stages read a stack. */
async function startClusteredScenarioStack(options: {
  programs: Programs;
  cloud: string;
  admin?: boolean;
  env?: Record<string, string | undefined>;
  reportingEnv?: Record<string, string> | undefined;
}): Promise<ScenarioStack> {
  const [services, cluster] = await Promise.allSettled([
    startServices({ only: ["victoriaMetrics"], env: options.env ?? process.env }),
    startClusterStack(options),
  ]);
  if (services.status === "rejected" || cluster.status === "rejected") {
    if (services.status === "fulfilled") await services.value.stop();
    if (cluster.status === "fulfilled") await cluster.value.stop();
    throw services.status === "rejected" ? services.reason : (cluster as PromiseRejectedResult).reason;
  }
  const stack = cluster.value;
  const [first] = stack.replicas;
  const [collector] = stack.collectors;
  const vm = services.value.victoriaMetrics;
  if (first === undefined || collector === undefined || vm === undefined)
    throw new Error("the clustered stack did not start");
  return {
    reportingDbUrl: stack.reportingDbUrl,
    engineDbUrl: stack.engineDbUrl,
    vmUrl: vm.url,
    reportingUrl: stack.reportingUrl,
    reporting: first.daemon,
    ingestSecret: stack.ingestSecret,
    internalToken: stack.internalToken,
    ...(stack.adminToken === undefined ? {} : { adminToken: stack.adminToken }),
    broker: { amqpUrl: stack.amqpUrls.join(","), collector },
    cluster: stack,
    startMs: services.value.startMs,
    async stop() {
      await stack.stop();
      await services.value.stop();
    },
  };
}
