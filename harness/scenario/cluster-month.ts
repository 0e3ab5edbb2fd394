/**
 * The month on the clustered stack (issue 35): the simulator publishes on every node of the RabbitMQ
 * cluster (`SVC_SIM_AMQP_URL` lists them) while the runner plays the faults (`cluster-faults.ts`);
 * then the month is carried when the queue, both outboxes and the Reporting API say so together
 * (counters are not summed: a killed collector's began again). The held share is released and carried
 * the same way, and the Reporting API must then hold each event of the month's files exactly once.
 */
import postgres from "postgres";
import { byEventKey } from "../collector/reporting-api.ts";
import { type BusRun, startBusRun } from "./bus-month.ts";
import { type ClusterSeen, driveFaults, type FaultSeen, faultsLine } from "./cluster-faults.ts";
import { clusterDrained } from "./cluster-observe.ts";
import type { ClusterStack } from "./cluster-stack.ts";
import {
  type DeliveryOptions,
  distinctEvents,
  type MonthDelivery,
  readMonth,
  storedTotals,
} from "./month-delivery.ts";

const keyOf = (e: { event_id: string; timestamp: string }) => `${e.event_id}@${e.timestamp}`;

/** The month's distinct (event_id, timestamp) against the rows the Reporting API stores for the cloud. */
async function exactlyOnce(
  stack: ClusterStack,
  cloud: string,
  lines: readonly string[],
): Promise<ClusterSeen["exactlyOnce"]> {
  const expected = new Set(lines.map((l) => keyOf(JSON.parse(l) as { event_id: string; timestamp: string })));
  const sql = postgres(stack.reportingDbUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ event_id: string; timestamp: Date | string }[]>`
      select event_id, timestamp from events where cloud = ${cloud} and source <> 'reconciliation'`;
    const stored = rows
      .map((r) => ({ event_id: r.event_id, timestamp: new Date(r.timestamp).toISOString() }))
      .sort(byEventKey)
      .map(keyOf);
    const seen = new Set(stored);
    return {
      expected: expected.size,
      stored: stored.length,
      missing: [...expected].filter((k) => !seen.has(k)),
      // A key stored twice cannot be (the table's key), but one the month never sent can.
      extra: stored.filter((k) => !expected.has(k)),
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** `seed`: the run's, which the faults' moments are drawn from. */
export function clusterDelivery(options: DeliveryOptions & { seed: number }): MonthDelivery {
  const stack = options.stack.cluster;
  if (stack === undefined) throw new Error("the cluster month needs the clustered stack");
  let bus: BusRun | undefined;
  let faults: FaultSeen[] = [];
  let seen: ClusterSeen | undefined;
  let events = 0;
  const drain = async (lines: readonly string[]) => {
    events = distinctEvents(lines);
    const drained = await clusterDrained({ stack, cloud: options.cloud, events, timeoutMs: 300_000 });
    seen = { faults, exactlyOnce: await exactlyOnce(stack, options.cloud, lines) };
    return drained;
  };
  const drainedLine = (d: { stored: number }) =>
    `the queue is empty, both outboxes drained: the Reporting API holds ${d.stored} of the month's ${events} events`;
  return {
    words:
      "published on a RabbitMQ cluster by the simulator, carried by two collectors to two Reporting APIs",
    async month(stage) {
      const generated = await stage(
        "faults",
        async () => {
          // The clock starts held: the runner drives it from mark to mark.
          bus = await startBusRun({
            args: [...options.simulatorArgs, "--out", options.monthDir, "--factor", "1"],
            env: {
              ...options.simulatorEnv,
              SVC_SIM_CLOUD: options.cloud,
              SVC_SIM_AMQP_URL: stack.amqpUrls.join(","),
            },
            logFile: options.programs.logOf("simulator"),
            holdsBack: options.holdsBack,
          });
          faults = await driveFaults({ bus, stack, period: options.period, seed: options.seed });
          await bus.published();
          return readMonth(options.monthDir, undefined);
        },
        (g) => `${g.notifications} notifications published through four faults: ${faultsLine(faults)}`,
      );
      await stage("collect", () => drain(generated.published), drainedLine);
      return generated;
    },
    async held(stage, generated) {
      await stage(
        "release",
        async () => {
          await bus?.release();
          return drain([...generated.published, ...generated.held]);
        },
        (d) => `POST /release published the held share; ${drainedLine(d)}`,
      );
    },
    totals: () => storedTotals(stack.reportingDbUrl, options.cloud, events),
    collector: () => undefined,
    outage: () => undefined,
    cluster: () => seen,
    stop: async () => {
      await bus?.stop();
    },
  };
}
