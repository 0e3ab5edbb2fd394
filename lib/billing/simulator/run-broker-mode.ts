import type { Logger } from "../../foundation/log/logger.ts";
import { type ListenAddress, runBusSession } from "./bus-session.ts";
import { generateMonth } from "./generate-month.ts";
import type { Month } from "./month.ts";
import { clearMonthFiles } from "./month-files.ts";
import { entryLines, lineCount, monthStream, type StreamEntry } from "./month-stream.ts";
import { type OtlpPushSettings, OtlpTrafficPush, pushTrafficOnClock } from "./otlp-traffic-push.ts";
import { LoadBalancerMembers } from "./platform-api/load-balancer-members.ts";
import { platformApiRoutes, runToken } from "./platform-api/platform-api.ts";
import { PlatformView } from "./platform-api/platform-view.ts";
import type { TimedLine } from "./publish-lines.ts";
import { type Progress, writeMonthFiles } from "./run-file-mode.ts";
import type { RunOptions } from "./run-options.ts";
import { TrafficCounters } from "./traffic-counters.ts";
import type { VirtualClock } from "./virtual-clock.ts";

/** The exchanges a simulated month publishes on (volume notifications on `platform_a`: docs/simulator.md#writing-a-month-to-files). */
export const monthExchanges = ["nova", "platform_a", "neutron", "glance", "octavia"] as const;

export interface BrokerRunInput {
  options: RunOptions;
  cloud: string;
  amqpUrl: string;
  listen: ListenAddress;
  /** SVC_METRICS_ENABLED: serve the inventory `GET /metrics`. */
  metricsEnabled: boolean;
  /** SVC_SIM_OTLP_*: push the instances' traffic on the metrics grid. */
  otlp?: OtlpPushSettings | undefined;
  logger: Logger;
  signal: AbortSignal;
  progress?: Progress;
  /** Called once the control endpoint listens, with its port (the one given, or the one chosen for 0). */
  onListening?: (port: number) => void;
}

export interface BrokerRunReport {
  resources: number;
  published: number;
  held: number;
  released: boolean;
  stopped: boolean;
}

/** The lines of `entries` with the instants they are due: a refused twin or a duplicate is due with its original. */
function* timed(entries: readonly StreamEntry[]): Generator<TimedLine> {
  for (const entry of entries) {
    for (const line of entryLines(entry)) yield { at: entry.input.step.at, line };
  }
}

/**
 * `run` with `SVC_SIM_AMQP_URL` (docs/simulator.md#publishing-on-the-broker): with `--out` the month is written first, then the control
 * endpoint listens, the publisher connects and makes sure of the exchanges, waits for a collector, and
 * publishes on the virtual clock from the first instant of the month (decision 230). A run with
 * held-back then holds until `POST /release`, publishes the held share at once and ends.
 */
export async function runBrokerMode(input: BrokerRunInput): Promise<BrokerRunReport> {
  const { options, logger, signal } = input;
  const progress = input.progress ?? (() => {});
  progress("generating the month");
  const month = generateMonth({
    seed: options.seed,
    period: options.period,
    cloud: input.cloud,
    scale: options.scale,
    extraTypes: options.extraTypes,
  });
  progress(`ordering the notifications of ${month.resources.length} resources`);
  const stream = monthStream(month, options.faults, options.novaFormat);
  const lines = (entries: readonly StreamEntry[]) => entries.reduce((n, e) => n + lineCount(e), 0);
  const report: BrokerRunReport = {
    resources: month.resources.length,
    published: 0,
    held: lines(stream.held),
    released: false,
    stopped: true,
  };
  if (options.out !== null) {
    await clearMonthFiles(options.out);
    const written = await writeMonthFiles({
      source: { tenants: month.tenants, resources: () => month.resources },
      seed: options.seed,
      period: options.period,
      cloud: input.cloud,
      faults: options.faults,
      novaFormat: options.novaFormat,
      out: options.out,
      progress,
      signal,
    });
    if (written === null) return report;
    logger.info({ out: options.out, paths: written.paths }, `month ${options.period.name} written`);
  }
  progress("");

  const view = new PlatformView(month);
  const token = runToken();
  const session = await runBusSession({
    amqpUrl: input.amqpUrl,
    exchanges: monthExchanges,
    listen: input.listen,
    logger,
    signal,
    startMs: Date.parse(options.period.from),
    factor: options.factor,
    waitForCollectorMs: options.waitForCollectorMs,
    periodFrom: options.period.from,
    periodTo: options.period.to,
    regular: timed(stream.published),
    held: options.faults.includes("held-back")
      ? { lines: timed(stream.held), count: lines(stream.held) }
      : null,
    total: lines(stream.published) + lines(stream.held),
    routes: (clock) =>
      platformApiRoutes({
        view,
        token,
        now: () => clock.now(),
        members: new LoadBalancerMembers(),
        metricsEnabled: input.metricsEnabled,
      }),
    onListening: input.onListening,
    alongside: input.otlp === undefined ? undefined : trafficPush(input.otlp, month, options, input),
  });
  return { ...report, ...session };
}

/** The OTLP push of the month's traffic on the clock of the session (decision 244). */
function trafficPush(settings: OtlpPushSettings, month: Month, options: RunOptions, input: BrokerRunInput) {
  return async (clock: VirtualClock, finished: AbortSignal) => {
    const push = new OtlpTrafficPush(settings, input.cloud, input.logger);
    try {
      await pushTrafficOnClock({
        counters: new TrafficCounters(month),
        push,
        clock,
        gridMs: options.metricsIntervalSeconds * 1000,
        fromMs: Date.parse(options.period.from),
        toMs: Date.parse(options.period.to),
        signal: input.signal,
        finished,
      });
    } finally {
      await push.shutdown();
    }
  };
}
