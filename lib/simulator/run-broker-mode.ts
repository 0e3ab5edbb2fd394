import { createApp } from "../http/create-app.ts";
import type { Listenable } from "../http/serve.ts";
import type { Logger } from "../log/logger.ts";
import { AmqpPublisher } from "./amqp-publisher.ts";
import { controlRoutes } from "./control-routes.ts";
import { generateMonth } from "./generate-month.ts";
import { clearMonthFiles } from "./month-files.ts";
import { entryLine, type MonthStream, monthStream, type StreamEntry } from "./month-stream.ts";
import { platformApiRoutes, runToken } from "./platform-api/platform-api.ts";
import { PlatformView } from "./platform-api/platform-view.ts";
import { Publication } from "./publication.ts";
import { publishLines, type TimedLine } from "./publish-lines.ts";
import { type Progress, writeMonthFiles } from "./run-file-mode.ts";
import type { RunOptions } from "./run-options.ts";
import { VirtualClock } from "./virtual-clock.ts";

export const simulatorService = "svc-simulator";

/** The exchanges a simulated month publishes on (volume notifications on `platform_a`, spec 2). */
export const monthExchanges = ["nova", "platform_a", "neutron", "glance", "octavia"] as const;

export interface ListenAddress {
  hostname: string;
  port: number;
}

export interface BrokerRunInput {
  options: RunOptions;
  cloud: string;
  amqpUrl: string;
  listen: ListenAddress;
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

/** The listener could not be opened: the run ends before anything is published. */
export class ListenError extends Error {}

/** The lines of `entries` with the instants they are due: a refused twin or a duplicate is due with its original. */
function* timed(entries: readonly StreamEntry[]): Generator<TimedLine> {
  for (const entry of entries) yield { at: entry.input.step.at, line: entryLine(entry) };
}

/**
 * `run` with `SVC_SIM_AMQP_URL` (spec 2): with `--out` the month is written first, then the control
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
  });
  progress(`ordering the notifications of ${month.resources.length} resources`);
  const stream = monthStream(month, options.faults);
  const report: BrokerRunReport = {
    resources: month.resources.length,
    published: 0,
    held: stream.held.length,
    released: false,
    stopped: true,
  };
  if (options.out !== null) {
    await clearMonthFiles(options.out);
    const written = await writeMonthFiles({
      month,
      stream,
      faults: options.faults,
      out: options.out,
      progress,
      signal,
    });
    if (written === null) return report;
    logger.info({ out: options.out, paths: written.paths }, `month ${options.period.name} written`);
  }
  progress("");

  const publisher = await AmqpPublisher.connect({ url: input.amqpUrl, exchanges: monthExchanges, logger });
  try {
    if (options.waitForCollectorMs > 0) {
      if (!(await publisher.waitForCollector(options.waitForCollectorMs, signal))) return report;
    }
    const clock = new VirtualClock(Date.parse(options.period.from), options.factor);
    const publication = new Publication(clock, {
      periodFrom: options.period.from,
      periodTo: options.period.to,
      total: stream.published.length + stream.held.length,
      held: stream.held.length,
      holdsBack: options.faults.includes("held-back"),
    });
    const view = new PlatformView(month);
    const app = createApp({ service: simulatorService, logger })
      .use(controlRoutes(publication))
      .use(platformApiRoutes({ view, token: runToken(), now: () => clock.now() }));
    const port = listen(app, input.listen, logger);
    input.onListening?.(port);
    try {
      await publishMonth({ stream, publication, publisher, logger, signal, report });
    } finally {
      await app.stop(true);
    }
    return report;
  } finally {
    await publisher.close();
  }
}

async function publishMonth(input: {
  stream: MonthStream;
  publication: Publication;
  publisher: AmqpPublisher;
  logger: Logger;
  signal: AbortSignal;
  report: BrokerRunReport;
}): Promise<void> {
  const { stream, publication, publisher, logger, signal, report } = input;
  const onConfirmed = () => {
    publication.published += 1;
    report.published = publication.published;
  };
  const clock = publication.clock;
  logger.info(
    { total: publication.total, held: publication.held, factor: clock.factor },
    "publishing the month",
  );
  if (!(await publishLines(timed(stream.published), { bus: publisher, clock, signal, onConfirmed }))) return;
  publication.regularLinesDone();
  if (publication.phase === "holding") {
    logger.info({ held: publication.held }, "holding the held-back share until POST /release");
    if (!(await untilReleased(publication, signal))) return;
    report.released = true;
    const lines = timed(stream.held);
    if (!(await publishLines(lines, { bus: publisher, clock, signal, onConfirmed, atOnce: true }))) return;
    publication.heldLinesDone();
  }
  report.stopped = false;
  logger.info({ published: publication.published }, "the month is published");
}

function untilReleased(publication: Publication, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal.addEventListener("abort", onAbort, { once: true });
    void publication.released.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    });
  });
}

/** Opens the listener; a port in use or an address that cannot be bound ends the run before publishing. */
function listen(app: Listenable, address: ListenAddress, logger: Logger): number {
  try {
    app.listen({ hostname: address.hostname, port: address.port });
  } catch (cause) {
    throw new ListenError(
      `cannot listen on ${address.hostname}:${address.port} (SVC_SIM_HTTP_ADDR, SVC_SIM_HTTP_PORT): ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  const port = app.server?.port;
  if (port === undefined) throw new ListenError("the control endpoint did not start");
  logger.info({ hostname: address.hostname, port }, "listening");
  return port;
}
