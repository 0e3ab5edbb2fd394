import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NotificationLine } from "../../lib/billing/simulator/notification-line.ts";
import type { ClockDocument } from "../../lib/billing/simulator/publication.ts";
import { expositionTotal } from "../../lib/foundation/metrics/exposition-total.ts";
import { type CollectorProcess, collectorExchanges } from "../collector/collector-process.ts";
import { deliveryOutcomes } from "../collector/simulated-month.ts";
import { Daemon } from "../process/daemon.ts";
import { freePort, releasePort } from "../process/free-port.ts";
import { waitFor } from "../process/wait-for.ts";

const root = join(import.meta.dir, "../..");

/** What the collector has counted, and what its outbox still holds. */
export interface CollectorCounts {
  consumed: number;
  skipped: number;
  unparseable: number;
  buffered: number;
}

export async function collectorCounts(collector: CollectorProcess): Promise<CollectorCounts> {
  const metrics = (await collector.get("/metrics")).text;
  return {
    consumed: expositionTotal(metrics, "svc_collector_consumed_total"),
    skipped: expositionTotal(metrics, "svc_collector_skipped_total"),
    unparseable: expositionTotal(metrics, "svc_collector_unparseable_total"),
    buffered: expositionTotal(metrics, "svc_collector_buffer_depth"),
  };
}

/** The notification lines of the month's files (a file the month did not write is skipped). */
export function monthLines(monthDir: string, files: readonly string[]): NotificationLine[] {
  const lines: NotificationLine[] = [];
  for (const file of files) {
    let text = "";
    try {
      text = readFileSync(join(monthDir, file), "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) if (line !== "") lines.push(JSON.parse(line) as NotificationLine);
  }
  return lines;
}

/** The counts the collector must reach for the month's files: each line through the one mapping. */
export function expectedCounts(lines: readonly NotificationLine[], cloud: string) {
  return deliveryOutcomes(lines, { cloud, exchanges: collectorExchanges }).expected;
}

/**
 * Waits until the collector has acknowledged `expected` deliveries (consumed, skipped and unparseable
 * together) and its outbox is empty: every event it mapped is then stored by the Reporting API.
 */
export async function collectorDrained(
  collector: CollectorProcess,
  expected: number,
  timeoutMs: number,
): Promise<CollectorCounts> {
  let counts: CollectorCounts = { consumed: 0, skipped: 0, unparseable: 0, buffered: 0 };
  await waitFor(
    async () => {
      counts = await collectorCounts(collector);
      return counts.consumed + counts.skipped + counts.unparseable >= expected && counts.buffered === 0;
    },
    {
      timeoutMs,
      intervalMs: 200,
      onTimeout: () =>
        new Error(
          `the collector did not drain in ${timeoutMs / 1000} s: ${counts.consumed} consumed, ${counts.skipped} skipped, ${counts.unparseable} unparseable of ${expected} published, ${counts.buffered} still in its outbox`,
        ),
    },
  );
  return counts;
}

/** `simulator run` publishing on the broker, as a process with its control endpoint. */
export interface BusRun {
  /** `GET /clock`: where the month has got to. */
  clock(): Promise<ClockDocument>;
  /** `PUT /clock`: the virtual seconds per wall second from the instant reached. */
  setFactor(factor: number): Promise<ClockDocument>;
  /** Resolves once every regular line is confirmed: the run holds its held share, or has ended. */
  published(): Promise<void>;
  /** `POST /release`: the held share is published and the run ends. */
  release(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `simulator run` in broker mode (`--out` too, so the month's files are kept, and `--factor 0`,
 * publishing as fast as the broker confirms) with its control endpoint on a free port.
 */
export async function startBusRun(options: {
  args: readonly string[];
  env: Record<string, string>;
  logFile: string;
  holdsBack: boolean;
  /** Its control port when the caller chose it beforehand (default: a free one). */
  port?: number | undefined;
}): Promise<BusRun> {
  const port = options.port ?? (await freePort());
  const control = `http://127.0.0.1:${port}`;
  const simulator = new Daemon({
    name: "simulator",
    command: "bun",
    args: [join(root, "cmd/simulator.ts"), ...options.args],
    logFile: options.logFile,
    env: { ...options.env, SVC_SIM_HTTP_ADDR: "127.0.0.1", SVC_SIM_HTTP_PORT: String(port) },
  });
  const ended = async (what: string) => {
    const status = await simulator.exited;
    if (status.code !== 0)
      throw new Error(
        `simulator run ${what} with exit ${status.code ?? status.signal} (log: ${options.logFile})`,
      );
  };
  const holding = async () => {
    const clock = await fetch(`${control}/clock`).catch(() => null);
    return clock?.ok === true && ((await clock.json()) as { holding: boolean }).holding;
  };
  const clockCall = async (init?: RequestInit) => {
    const answer = await fetch(`${control}/clock`, init);
    if (!answer.ok)
      throw new Error(`${init?.method ?? "GET"} /clock answered ${answer.status}: ${await answer.text()}`);
    return (await answer.json()) as ClockDocument;
  };
  return {
    clock: () => clockCall(),
    setFactor: (factor) => clockCall({ method: "PUT", body: JSON.stringify({ factor }) }),
    async published() {
      if (!options.holdsBack) return ended("ended");
      await waitFor(async () => !simulator.running || (await holding()), {
        timeoutMs: 600_000,
        intervalMs: 200,
        onTimeout: () => new Error(`the simulator did not reach holding in 10 min (log: ${options.logFile})`),
      });
      if (!simulator.running) await ended("ended before holding");
    },
    async release() {
      const answer = await fetch(`${control}/release`, { method: "POST" });
      if (!answer.ok) throw new Error(`POST /release answered ${answer.status}: ${await answer.text()}`);
      await ended("ended after the release");
      releasePort(port);
    },
    async stop() {
      await simulator.stop();
      releasePort(port);
    },
  };
}
