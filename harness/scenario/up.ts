import { heldOpen } from "../../lib/foundation/process/held-open.ts";
import { currentRoot, killEverything } from "../process/cleanup-registry.ts";
import { type ServiceName, type Services, startServices } from "../services/services.ts";

interface UpOptions {
  /** Receives each line to show the person (stdout in `bun scenario up`). */
  print: (line: string) => void;
  /** Resolves when the stack should come down (Ctrl-C or SIGTERM in the command). */
  until: Promise<void>;
  env?: Record<string, string | undefined>;
}

/** How a person reads each service's name. */
export const serviceLabels: Record<ServiceName, string> = {
  postgres: "postgres",
  rabbitmq: "rabbitmq",
  ovn: "ovn",
  victoriaMetrics: "victoria-metrics",
};

/** The lines that tell a person how to work against the stack: URLs and export lines. */
export async function describe(services: Services, harnessDir: string | undefined): Promise<string[]> {
  const { postgres, rabbitmq, ovn, victoriaMetrics } = services;
  if (
    postgres === undefined ||
    rabbitmq === undefined ||
    ovn === undefined ||
    victoriaMetrics === undefined
  ) {
    throw new Error("scenario up needs all four services");
  }
  const timings = Object.entries(services.startMs)
    .map(([name, ms]) => `${serviceLabels[name as ServiceName]} ${ms} ms`)
    .join(", ");
  const reportingDb = await postgres.createDatabase("svc_reporting");
  const engineDb = await postgres.createDatabase("svc_engine");
  const amqp = `${rabbitmq.url}/`;
  const lines = [
    `svc stack up (started in parallel: ${timings})`,
    ...(harnessDir === undefined ? [] : [`daemon dirs and logs: ${harnessDir}`]),
    "",
    "# PostgreSQL: one database for the Reporting API, one for the engine",
    `export SVC_REPORTING_DB_URL=${reportingDb}`,
    `export SVC_ENGINE_REPORTING_DB_URL=${reportingDb}`,
    `export SVC_ENGINE_DB_URL=${engineDb}`,
    `# RabbitMQ ${rabbitmq.nodeName ?? ""} (management UI ${rabbitmq.managementUrl ?? "not started"}, guest/guest)`,
    `export SVC_OSC_AMQP_URL=${amqp}`,
    `export SVC_SIM_AMQP_URL=${amqp}`,
    "# Debian's RabbitMQ 3.10 predates the collector's default quorum queues (4.0)",
    "export SVC_OSC_QUEUE_TYPE=classic",
    "# OVN: ovn-nbctl and ovn-sbctl read OVN_NB_DB and OVN_SB_DB",
    `export OVN_NB_DB=${ovn.nbRemote}`,
    `export OVN_SB_DB=${ovn.sbRemote}`,
    ...ovn.chassis.map(
      (one) => `#   chassis ${one.systemId}: switch database ${one.dbRemote}, encap ${one.encapIp}`,
    ),
    "# VictoriaMetrics",
    `export SVC_ENGINE_VM_URL=${victoriaMetrics.url}`,
    "# `bun test` in another shell reuses these services instead of starting its own",
    `export SVC_TEST_PG_URL=${postgres.url}`,
    `export SVC_TEST_AMQP_URL=${rabbitmq.url}`,
    ...(rabbitmq.managementUrl === undefined
      ? []
      : [`export SVC_TEST_AMQP_MANAGEMENT_URL=${rabbitmq.managementUrl}`]),
    `export SVC_TEST_OVN_NB=${ovn.nbRemote}`,
    `export SVC_TEST_OVN_SB=${ovn.sbRemote}`,
    `export SVC_TEST_VM_URL=${victoriaMetrics.url}`,
    "",
    "Press Ctrl-C to stop and clean up.",
  ];
  return lines;
}

/**
 * `bun scenario up`: starts PostgreSQL, RabbitMQ, OVN (two chassis) and VictoriaMetrics, prints how
 * to reach them, keeps them up until `until` resolves, then stops them and removes their dirs.
 */
export async function up(options: UpOptions): Promise<void> {
  const starting = startServices({ chassis: 2, env: options.env ?? process.env });
  // A stop asked for while the services start does not wait for a slow start (RabbitMQ can take a
  // minute on a loaded machine): what has started is killed and its dirs removed at once.
  const services = await Promise.race([starting, options.until.then(() => undefined)]);
  if (services === undefined) {
    options.print("stopping…");
    starting.then((late) => late.stop()).catch(() => {});
    killEverything();
    options.print("stopped; daemons and their dirs removed");
    return;
  }
  try {
    for (const line of await describe(services, currentRoot())) options.print(line);
    await heldOpen(options.until);
    options.print("stopping…");
  } finally {
    await services.stop();
  }
  options.print("stopped; daemons and their dirs removed");
}
