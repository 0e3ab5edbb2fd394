/**
 * The cluster scenario's faults (decision 531): while the simulator publishes the month, the runner
 * drives its clock from mark to mark as the outage stage does, and at four seeded moments kills with
 * SIGKILL the PostgreSQL primary, the RabbitMQ node hosting the queue, one Reporting API and one
 * collector, in a seeded order, each in its own fifth of the month. Through each fault the month goes
 * on at two hours a second, so the collectors keep delivering while the part is gone. Once the stack
 * serves without it, the killed part is started again while the month goes on to the next fault: each
 * fault strikes a different engine or program, so none waits for another's restart (a PostgreSQL node
 * rejoining takes 20-30 s, a RabbitMQ node booting 30-40 s on a loaded machine), and the stage ends
 * once every part is back. What each fault did and how long the stack took to recover is kept for the
 * checks and the report.
 */
import { queueName } from "../../lib/billing/collector/notification-consumer.ts";
import { expositionTotal } from "../../lib/foundation/metrics/exposition-total.ts";
import { Prng } from "../../lib/foundation/random/prng.ts";
import { instantFromMs, msOf } from "../../lib/foundation/time/instant.ts";
import type { Period } from "../../lib/foundation/time/period.ts";
import type { CollectorProcess } from "../collector/collector-process.ts";
import { waitFor } from "../process/wait-for.ts";
import { type BusRun, collectorCounts } from "./bus-month.ts";
import {
  brokerSessions,
  type RetriedDeliveries,
  retriedDeliveries,
  runningNodeUrl,
} from "./cluster-observe.ts";
import type { ClusterStack } from "./cluster-stack.ts";
import type { WorkerKillSeen } from "./worker-kill.ts";

export type FaultKind = "postgres" | "rabbitmq" | "reporting" | "collector";

/** One fault as it played. */
export interface FaultSeen {
  kind: FaultKind;
  /** What was killed, in words. */
  target: string;
  /** The month's virtual instant at the kill. */
  at: string;
  /** Wall milliseconds from the kill until the stack served again without the part. */
  recoveredMs: number;
  /** How it recovered, in words. */
  recovery: string;
  /** Wall milliseconds from the kill until the killed part was back. */
  restartedMs: number;
  /** The collectors' POSTs retried from the kill until the fault was over, by answer. */
  retried: RetriedDeliveries;
  /** Deliveries the broker sent again meanwhile (the collectors' `svc_collector_redelivered_total`). */
  redelivered: number;
  /** Why the fault did not play as it should, when it did not. */
  problem?: string;
}

/** What the cluster month saw: its faults, and whether the Reporting API holds each event exactly once. */
export interface ClusterSeen {
  faults: FaultSeen[];
  /** The month's distinct events (published and held) against what the Reporting API stores. */
  exactlyOnce: { expected: number; stored: number; missing: string[]; extra: string[] };
  /** The worker killed while `engine run --workers 2` metered the month (the meter stage's). */
  workerKill?: WorkerKillSeen;
}

/** The plan of a seed: each fault's kind and mark (a fraction of the month), in order. */
export function faultPlan(seed: number): { kind: FaultKind; mark: number; pick: number }[] {
  const random = new Prng(seed, "cluster-faults");
  const kinds: FaultKind[] = ["postgres", "rabbitmq", "reporting", "collector"];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [kinds[i], kinds[j]] = [kinds[j] as FaultKind, kinds[i] as FaultKind];
  }
  // A fifth of the month each from a tenth on, the mark in the first half of it: a fault and its
  // recovery, two hours a second, take up to two days of the month.
  return kinds.map((kind, i) => ({
    kind,
    mark: 0.1 + 0.2 * i + 0.1 * random.next(),
    pick: random.int(0, 1),
  }));
}

/** Answers counted by status, in the order first seen: `503 ×2, 200 ×1`. */
export function answersText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([status, n]) => `${status} ×${n}`)
    .join(", ");
}

/** The posts the collectors retried during a fault, in words. */
export function retriedText(retried: RetriedDeliveries): string {
  return Object.keys(retried).length === 0 ? "no post retried" : `posts retried: ${answersText(retried)}`;
}

/** Seconds with one decimal, as the report lines show them. */
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function redeliveredTotal(collectors: readonly CollectorProcess[]): Promise<number> {
  let total = 0;
  for (const collector of collectors) {
    if (!collector.daemon.running) continue;
    const metrics = await collector.get("/metrics").catch(() => null);
    if (metrics !== null) total += expositionTotal(metrics.text, "svc_collector_redelivered_total");
  }
  return total;
}

/** Until every running collector's outbox is empty again: the stack carries the month as before. */
async function caughtUp(collectors: readonly CollectorProcess[], timeoutMs = 120_000): Promise<void> {
  await waitFor(
    async () => {
      for (const c of collectors) {
        if (!c.daemon.running) continue;
        const counts = await collectorCounts(c).catch(() => null);
        if (counts === null || counts.buffered > 0) return false;
      }
      return true;
    },
    {
      timeoutMs,
      intervalMs: 250,
      onTimeout: () => new Error(`the collectors did not catch up in ${s(timeoutMs)}`),
    },
  );
}

/**
 * A fault struck and recovered from: the stack serves without the killed part. `back` starts the part
 * again and settles once it is back, with what went wrong meanwhile.
 */
interface Struck {
  target: string;
  recoveredMs: number;
  recovery: string;
  problems: string[];
  back: () => Promise<string[]>;
}

/**
 * Reads through HAProxy every 200 ms (`GET /api/v1/events?limit=1`, which asks the database each
 * time) until stopped, keeping each answer's status and when its request began.
 */
function readProbe(stack: ClusterStack) {
  const answers: { begun: number; status: string }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const begun = performance.now();
      const response = await fetch(`${stack.reportingUrl}/api/v1/events?limit=1`, {
        headers: { authorization: `Bearer ${stack.adminToken ?? ""}` },
      }).catch(() => null);
      await response?.arrayBuffer();
      answers.push({ begun, status: response === null ? "no answer" : String(response.status) });
      await Bun.sleep(200);
    }
  })();
  return {
    /** Whether a read begun at or after `since` was answered 200. */
    servedSince: (since: number) => answers.some((a) => a.begun >= since && a.status === "200"),
    async stop(): Promise<Record<string, number>> {
      running = false;
      await loop;
      const counts: Record<string, number> = {};
      for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
      return counts;
    },
  };
}

async function killPrimary(stack: ClusterStack, killed: () => Promise<void>): Promise<Struck> {
  const primary = await stack.postgres.primary();
  if (primary === undefined) throw new Error("no PostgreSQL node is primary");
  const begun = performance.now();
  await primary.kill();
  await killed();
  const probe = readProbe(stack);
  const promoted = await stack.postgres.settled(120_000);
  const recoveredMs = performance.now() - begun;
  const settledAt = performance.now();
  await waitFor(() => probe.servedSince(settledAt), {
    timeoutMs: 60_000,
    onTimeout: () => new Error("the Reporting API did not answer 200 again within 60 s of the failover"),
  });
  const answers = await probe.stop();
  const others = Object.keys(answers).filter((status) => status !== "200" && status !== "503");
  return {
    target: `the PostgreSQL primary ${primary.name}`,
    recoveredMs,
    recovery: `${promoted.name} primary, HAProxy routing to it; reads through HAProxy answered ${answersText(answers)}`,
    problems: [
      ...(promoted === primary ? [`${primary.name} was promoted again: no failover`] : []),
      ...(others.length > 0 ? [`reads were answered ${others.join(", ")}: a failover is 503`] : []),
      ...(answers["503"] === undefined ? ["no read was answered 503: the failover was not seen"] : []),
    ],
    async back() {
      await primary.start();
      await stack.postgres.settled(180_000);
      const role = await primary.role();
      return role === "replica" ? [] : [`${primary.name} is ${role} after it came back`];
    },
  };
}

async function killQueueHost(stack: ClusterStack, killed: () => Promise<void>): Promise<Struck> {
  const before = await stack.rabbitmq.placement(runningNodeUrl(stack), queueName);
  const host = before === undefined ? undefined : stack.rabbitmq.node(before.node);
  if (before === undefined || host === undefined) throw new Error(`the queue ${queueName} has no node`);
  const begun = performance.now();
  const killedAt = Date.now();
  await host.kill();
  await killed();
  let moved: string | undefined;
  // Recovered: a mirror is the queue's master and every running collector has a session on a live
  // node (one still restarting from an earlier fault starts on a live node by itself).
  await waitFor(
    async () => {
      moved = (await stack.rabbitmq.placement(runningNodeUrl(stack), queueName))?.node;
      if (moved === undefined || moved === before.node) return false;
      for (const c of stack.collectors) {
        if (!c.daemon.running) continue;
        if ((await c.get("/readyz").catch(() => null))?.status !== 200) return false;
      }
      return true;
    },
    {
      timeoutMs: 120_000,
      intervalMs: 250,
      onTimeout: () => new Error("the queue found no new master in 2 min"),
    },
  );
  const recoveredMs = performance.now() - begun;
  const reconnected = stack.collectors.filter((c) => brokerSessions(c).some((x) => x.at > killedAt)).length;
  return {
    target: `the RabbitMQ node ${host.nodeName}, the queue's master`,
    recoveredMs,
    recovery: `the master moved to ${moved}, ${reconnected} collector${reconnected === 1 ? "" : "s"} reconnected`,
    problems: [],
    async back() {
      await host.start();
      await waitFor(
        async () =>
          (await stack.rabbitmq.placement(runningNodeUrl(stack), queueName))?.synchronised.includes(
            host.nodeName,
          ) === true,
        {
          timeoutMs: 180_000,
          intervalMs: 500,
          onTimeout: () => new Error(`${host.nodeName}'s mirror did not synchronise in 3 min`),
        },
      );
      return [];
    },
  };
}

async function killReplica(stack: ClusterStack, pick: number, killed: () => Promise<void>): Promise<Struck> {
  const replica = stack.replicas[pick % stack.replicas.length];
  if (replica === undefined) throw new Error("no Reporting API replica");
  const begun = performance.now();
  await replica.daemon.kill();
  await killed();
  // HAProxy's check marks it down within two seconds; meanwhile a failed connection is sent on.
  await Bun.sleep(3000);
  await caughtUp(stack.collectors);
  return {
    target: `the Reporting API ${replica.name}`,
    recoveredMs: performance.now() - begun,
    recovery: "the other replica served every POST",
    problems: [],
    async back() {
      await replica.daemon.start();
      return [];
    },
  };
}

async function killCollector(
  stack: ClusterStack,
  pick: number,
  killed: () => Promise<void>,
): Promise<Struck> {
  const index = pick % stack.collectors.length;
  const victim = stack.collectors[index];
  if (victim === undefined) throw new Error("no collector");
  const held = (await collectorCounts(victim)).buffered;
  const begun = performance.now();
  await victim.daemon.kill();
  await killed();
  await Bun.sleep(3000);
  return {
    target: `collector ${index + 1}`,
    recoveredMs: performance.now() - begun,
    recovery: `the other collector consumed on; ${held} events in the killed one's outbox`,
    problems: [],
    async back() {
      await victim.daemon.start();
      await waitFor(async () => (await victim.get("/readyz")).status === 200, {
        timeoutMs: 60_000,
        onTimeout: () => new Error(`collector ${index + 1} was not ready again in 60 s`),
      });
      return [];
    },
  };
}

/** Two hours of the month a wall second while a fault plays: the collectors keep delivering. */
const faultFactor = 7200;
/** A day of the month a wall second for `burstMs` before each kill: deliveries are in flight when it strikes. */
const burstFactor = 86_400;
const burstMs = 700;

/**
 * Drives the month through the seed's four faults and returns them as they played; the rest of the
 * month is published as fast as the broker confirms.
 */
export async function driveFaults(options: {
  bus: BusRun;
  stack: ClusterStack;
  period: Period;
  seed: number;
}): Promise<FaultSeen[]> {
  const { bus, stack } = options;
  const from = msOf(options.period.from);
  const span = msOf(options.period.to) - from;
  // An eighth of the month in about two wall seconds between faults, as the outage stage.
  const runFactor = span / 16_000;
  await waitFor(async () => (await bus.clock().catch(() => null)) !== null, {
    timeoutMs: 120_000,
    intervalMs: 100,
    onTimeout: () => new Error("the simulator's control endpoint did not answer in 2 min"),
  });
  const seen: FaultSeen[] = [];
  const restarts: Promise<void>[] = [];
  for (const { kind, mark, pick } of faultPlan(options.seed)) {
    const markMs = from + span * mark;
    await bus.setFactor(runFactor);
    await waitFor(async () => msOf((await bus.clock()).virtual_now) >= markMs, {
      timeoutMs: 120_000,
      intervalMs: 50,
      onTimeout: () => new Error(`the simulator's clock did not reach ${instantFromMs(markMs)} in 2 min`),
    });
    // A burst of the month just before the kill, so that it strikes deliveries in flight.
    const redeliveredBefore = await redeliveredTotal(stack.collectors);
    let at = (await bus.setFactor(burstFactor)).virtual_now;
    await Bun.sleep(burstMs);
    const killed = async () => {
      at = (await bus.setFactor(faultFactor)).virtual_now;
    };
    const killedAt = Date.now();
    const begun = performance.now();
    const struck =
      kind === "postgres"
        ? await killPrimary(stack, killed)
        : kind === "rabbitmq"
          ? await killQueueHost(stack, killed)
          : kind === "reporting"
            ? await killReplica(stack, pick, killed)
            : await killCollector(stack, pick, killed);
    const fault: FaultSeen = {
      kind,
      at,
      target: struck.target,
      recoveredMs: Math.round(struck.recoveredMs),
      recovery: struck.recovery,
      restartedMs: 0,
      retried: {},
      redelivered: 0,
    };
    seen.push(fault);
    const restart = struck.back().then((problems) => {
      fault.restartedMs = Math.round(performance.now() - begun);
      const all = [...struck.problems, ...problems];
      if (all.length > 0) fault.problem = all.join("; ");
    });
    // Awaited once every fault has played: a failure meanwhile must not count as unhandled.
    restart.catch(() => {});
    restarts.push(restart);
    await caughtUp(stack.collectors);
    // A restarted collector's counter began again at 0: what it counted since is all redelivered now.
    fault.redelivered = Math.max(0, (await redeliveredTotal(stack.collectors)) - redeliveredBefore);
    fault.retried = retriedDeliveries(stack.collectors, killedAt);
  }
  await bus.setFactor(0);
  await Promise.all(restarts);
  return seen;
}

/** The stage line's account of the faults. */
export function faultsLine(faults: readonly FaultSeen[]): string {
  const day = (at: string) => at.slice(5, 16).replace("T", " ");
  return faults
    .map(
      (f) =>
        `${f.target} killed at ${day(f.at)}, recovered in ${s(f.recoveredMs)}, back in ${s(f.restartedMs)}`,
    )
    .join("; ");
}
