import { type AnyElysia, Elysia } from "elysia";
import { createApp } from "../../foundation/http/create-app.ts";
import type { Listenable } from "../../foundation/http/serve.ts";
import type { Logger } from "../../foundation/log/logger.ts";
import { AmqpPublisher } from "./amqp-publisher.ts";
import { controlRoutes } from "./control-routes.ts";
import { Publication } from "./publication.ts";
import { publishLines, type TimedLine } from "./publish-lines.ts";
import { VirtualClock } from "./virtual-clock.ts";

export const simulatorService = "svc-simulator";

export interface ListenAddress {
  hostname: string;
  port: number;
}

/** The listener could not be opened: the run ends before anything is published. */
class ListenError extends Error {}

interface BusSessionInput {
  amqpUrl: string;
  /** Exchanges the lines use: made sure of before publishing. */
  exchanges: readonly string[];
  listen: ListenAddress;
  logger: Logger;
  signal: AbortSignal;
  /** Where the virtual clock starts, epoch milliseconds. */
  startMs: number;
  factor: number;
  waitForCollectorMs: number;
  periodFrom: string;
  periodTo: string;
  regular: Iterable<TimedLine>;
  /** The held-back share, published at once after `POST /release`; null when nothing is held. */
  held: { lines: Iterable<TimedLine>; count: number } | null;
  total: number;
  /** Routes served beside the control routes while the session runs (the fake platform API). */
  routes?: (clock: VirtualClock) => AnyElysia;
  /** Called once the endpoint listens, with its port (the one chosen for port 0). */
  onListening?: (port: number) => void;
  /**
   * Work that runs on the clock while the session publishes and holds (the OTLP push): `finished`
   * aborts once everything is published, `signal` on a stop; the session waits for it to end.
   */
  alongside?: (clock: VirtualClock, finished: AbortSignal) => Promise<void>;
}

export interface BusSessionReport {
  published: number;
  released: boolean;
  /** True when a signal ended the session before it was done. */
  stopped: boolean;
}

/**
 * One `run` or `replay` on the broker: connect and make sure of the exchanges, wait for a collector,
 * then serve the control endpoint (and `routes`) while publishing the regular lines on the virtual
 * clock and, when a share is held back, holding until `POST /release` (decision 230). The endpoint
 * stops when the session ends.
 */
export async function runBusSession(input: BusSessionInput): Promise<BusSessionReport> {
  const { logger, signal } = input;
  const report: BusSessionReport = { published: 0, released: false, stopped: true };
  const publisher = await AmqpPublisher.connect({ url: input.amqpUrl, exchanges: input.exchanges, logger });
  try {
    if (input.waitForCollectorMs > 0) {
      if (!(await publisher.waitForCollector(input.waitForCollectorMs, signal))) return report;
    }
    const clock = new VirtualClock(input.startMs, input.factor);
    const publication = new Publication(clock, {
      periodFrom: input.periodFrom,
      periodTo: input.periodTo,
      total: input.total,
      held: input.held?.count ?? 0,
      holdsBack: input.held !== null,
    });
    const app = createApp({ service: simulatorService, logger })
      .use(controlRoutes(publication))
      .use(input.routes?.(clock) ?? new Elysia({ name: "svc-simulator-nothing-more" }));
    const port = listen(app, input.listen, logger);
    input.onListening?.(port);
    const finished = new AbortController();
    const beside = input.alongside?.(clock, finished.signal) ?? Promise.resolve();
    try {
      const onConfirmed = () => {
        publication.published += 1;
        report.published = publication.published;
      };
      logger.info(
        { total: publication.total, held: publication.held, factor: clock.factor },
        "publishing the month",
      );
      const bus = { bus: publisher, clock, signal, onConfirmed };
      if (!(await publishLines(input.regular, bus))) return report;
      publication.regularLinesDone();
      if (input.held !== null) {
        logger.info({ held: publication.held }, "holding the held-back share until POST /release");
        if (!(await untilReleased(publication, signal))) return report;
        report.released = true;
        if (!(await publishLines(input.held.lines, { ...bus, atOnce: true }))) return report;
        publication.heldLinesDone();
      }
      report.stopped = false;
      logger.info({ published: publication.published }, "the month is published");
      return report;
    } finally {
      finished.abort();
      await beside;
      await app.stop(true);
    }
  } finally {
    await publisher.close();
  }
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
