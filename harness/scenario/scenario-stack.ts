import { join } from "node:path";
import { declaredExchanges } from "../../lib/billing/simulator/notification-line.ts";
import { type CollectorProcess, collectorProcess } from "../collector/collector-process.ts";
import { declareExchanges } from "../collector/publisher.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { retryOnPortInUse } from "../process/port-in-use-error.ts";
import { type DaemonControl, RestartableDaemon } from "../process/restartable-daemon.ts";
import { waitFor } from "../process/wait-for.ts";
import type { RabbitmqService } from "../services/rabbitmq.ts";
import { type ServiceName, startServices } from "../services/services.ts";
import { uniqueName } from "../services/unique-name.ts";
import type { Programs } from "./programs.ts";

const root = join(import.meta.dir, "../..");

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
  /** With the broker path: the run's vhost on RabbitMQ and the collector consuming it. */
  broker?: { amqpUrl: string; collector: CollectorProcess };
  /** Milliseconds each service took to start. */
  startMs: Partial<Record<ServiceName, number>>;
  /** Stops the programs, then the services, removing their dirs; safe to call twice. */
  stop(): Promise<void>;
}

/** Variables a person's shell may carry (from `scenario up`) that our programs must not read here. */
function withoutInherited(env: Record<string, string>): Record<string, string | undefined> {
  const cleared = Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => name.startsWith("SVC_") || name.startsWith("OVN_"))
      .map((name) => [name, undefined]),
  );
  return { ...cleared, ...env };
}

async function startReporting(
  programs: Programs,
  env: Record<string, string>,
): Promise<{ url: string; daemon: RestartableDaemon; port: number }> {
  return retryOnPortInUse(async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // Restartable on the same port, so that the collector's URL stays right across an outage.
    const daemon = new RestartableDaemon(
      {
        name: "reporting",
        command: "bun",
        args: [join(root, "cmd/reporting.ts")],
        logFile: programs.logOf("reporting"),
        env: withoutInherited({ ...env, SVC_REPORTING_HTTP_PORT: String(port) }),
      },
      async () => (await fetch(`${url}/readyz`)).ok,
      30_000,
    );
    try {
      await daemon.start();
    } catch (error) {
      releasePort(port);
      throw error;
    }
    return { url, daemon, port };
  });
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
}): Promise<ScenarioStack> {
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
    const [reportingDbUrl, engineDbUrl] = await Promise.all([
      postgres.createDatabase(uniqueName("scenario_reporting")),
      postgres.createDatabase(uniqueName("scenario_engine")),
    ]);
    await Promise.all([
      programs.run("reporting-admin", ["migrate"], { SVC_REPORTING_DB_URL: reportingDbUrl }),
      programs.run("engine", ["migrate"], { SVC_ENGINE_DB_URL: engineDbUrl }),
    ]);
    const [issued] = await programs.run(
      "reporting-admin",
      ["ingest", "issue", "--platform", "platform_a", "--cloud", options.cloud, "--label", "scenario"],
      { SVC_REPORTING_DB_URL: reportingDbUrl },
      { secretOutput: true },
    );
    const { secret: ingestSecret } = JSON.parse(issued ?? "{}") as { secret: string };
    let adminToken: string | undefined;
    if (options.admin === true) {
      const [token] = await programs.run(
        "reporting-admin",
        ["token", "issue", "--role", "admin", "--label", "scenario"],
        { SVC_REPORTING_DB_URL: reportingDbUrl },
        { secretOutput: true },
      );
      adminToken = (JSON.parse(token ?? "{}") as { secret: string }).secret;
    }
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
        reportingUrl: reporting.url,
        token: ingestSecret,
        cloud: options.cloud,
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
