/**
 * The outage stage (decision 519): the simulator publishes the month on its virtual clock, which the
 * runner drives from mark to mark and holds at real time while it acts, so that the order of what
 * fails is certain whatever the machine's load: at a quarter of the month the Reporting API is stopped
 * (the collector keeps consuming into its outbox), at three eighths the collector is killed with
 * SIGKILL holding those events, at half the collector starts again on the same outbox, at five eighths
 * the Reporting API starts again on the same port; the rest of the month is published as fast as the
 * broker confirms.
 */

import { instantFromMs, msOf } from "../../lib/foundation/time/instant.ts";
import type { Period } from "../../lib/foundation/time/period.ts";
import type { CollectorProcess } from "../collector/collector-process.ts";
import type { DaemonControl } from "../process/restartable-daemon.ts";
import { waitFor } from "../process/wait-for.ts";
import { type BusRun, collectorCounts } from "./bus-month.ts";

/** What the outage did, and what the collector held through it. */
export interface OutageSeen {
  /** Each action with the virtual instant the month had reached. */
  steps: { at: string; did: string }[];
  /** Events in the collector's outbox just before the SIGKILL (the API down: none could leave). */
  outboxAtKill: number;
  /** Events in its outbox once it was back, the API still down. */
  outboxAfterRestart: number;
  apiDownMs: number;
  collectorDownMs: number;
}

/** One virtual second per wall second: the month stands all but still while the runner acts. */
const holdFactor = 1;

export async function driveOutage(options: {
  bus: BusRun;
  collector: CollectorProcess;
  reporting: DaemonControl;
  period: Period;
}): Promise<OutageSeen> {
  const { bus, collector, reporting } = options;
  const from = msOf(options.period.from);
  const span = msOf(options.period.to) - from;
  // An eighth of the month in about two wall seconds between marks.
  const runFactor = span / 16_000;
  const steps: OutageSeen["steps"] = [];
  // The control endpoint listens once the simulator has seen the collector's queue.
  await waitFor(async () => (await bus.clock().catch(() => null)) !== null, {
    timeoutMs: 120_000,
    intervalMs: 100,
    onTimeout: () => new Error("the simulator's control endpoint did not answer in 2 min"),
  });
  const reach = async (fraction: number, did: string, act: () => Promise<void>) => {
    const mark = from + span * fraction;
    await bus.setFactor(runFactor);
    await waitFor(async () => msOf((await bus.clock()).virtual_now) >= mark, {
      timeoutMs: 120_000,
      intervalMs: 50,
      onTimeout: () => new Error(`the simulator's clock did not reach ${instantFromMs(mark)} in 2 min`),
    });
    const held = await bus.setFactor(holdFactor);
    await act();
    steps.push({ at: held.virtual_now, did });
  };
  const buffered = async () => (await collectorCounts(collector)).buffered;
  let apiStopped = 0;
  let collectorKilled = 0;
  let outboxAtKill = 0;
  let outboxAfterRestart = 0;
  let apiDownMs = 0;
  let collectorDownMs = 0;
  await reach(1 / 4, "Reporting API stopped (SIGTERM)", async () => {
    await reporting.stop();
    apiStopped = performance.now();
  });
  await reach(3 / 8, "collector killed (SIGKILL)", async () => {
    outboxAtKill = await buffered();
    await collector.daemon.kill();
    collectorKilled = performance.now();
  });
  await reach(1 / 2, "collector started again on its outbox", async () => {
    await collector.daemon.start();
    collectorDownMs = performance.now() - collectorKilled;
    outboxAfterRestart = await buffered();
  });
  await reach(5 / 8, "Reporting API started again on its port", async () => {
    await reporting.start();
    apiDownMs = performance.now() - apiStopped;
  });
  // The rest of the month as fast as the broker confirms.
  await bus.setFactor(0);
  return {
    steps,
    outboxAtKill,
    outboxAfterRestart,
    apiDownMs: Math.round(apiDownMs),
    collectorDownMs: Math.round(collectorDownMs),
  };
}

/** The stage line's account of the outage. */
export function outageLine(seen: OutageSeen): string {
  const day = (at: string) => at.slice(5, 16).replace("T", " ");
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const [stopped, killed, restarted] = seen.steps;
  return [
    `Reporting API stopped at ${day(stopped?.at ?? "")} for ${s(seen.apiDownMs)}`,
    `collector killed at ${day(killed?.at ?? "")} with ${seen.outboxAtKill} events in its outbox, back at ${day(restarted?.at ?? "")} after ${s(seen.collectorDownMs)} with ${seen.outboxAfterRestart}`,
  ].join("; ");
}
