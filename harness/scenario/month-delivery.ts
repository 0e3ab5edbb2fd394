import { readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { queueName } from "../../lib/billing/collector/notification-consumer.ts";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { readOracle } from "../../lib/billing/simulator/oracle-document.ts";
import type { Period } from "../../lib/foundation/time/period.ts";
import { type CollectorProcess, collectorExchanges } from "../collector/collector-process.ts";
import { queueDepth } from "../collector/publisher.ts";
import { waitFor } from "../process/wait-for.ts";
import { type IngestTotals, postEventLines } from "../reporting/post-event-lines.ts";
import {
  type BusRun,
  type CollectorCounts,
  collectorCounts,
  collectorDrained,
  expectedCounts,
  monthLines,
  startBusRun,
} from "./bus-month.ts";
import { driveOutage, type OutageSeen, outageLine } from "./outage.ts";
import type { Programs } from "./programs.ts";
import { refusedTwins } from "./refused-twins.ts";
import type { ScenarioStack } from "./scenario-stack.ts";

/** How the month reaches the Reporting API. */
export type Via = "file" | "broker";

/** The month as generated: its oracle and its event lines, split as they are delivered. */
export interface Generated {
  oracle: Oracle;
  /** `events.jsonl` lines of the regular share, without a dropped event. */
  published: string[];
  /** `events.jsonl` lines of the held share (delivered after finalizing). */
  held: string[];
  dropped: number;
  notifications: number;
  heldNotifications: number;
}

/** Runs one stage: its name, its work, and the report line of its result. */
export type StageRunner = <T>(
  name: string,
  work: () => Promise<T>,
  describe: (value: T) => string,
) => Promise<T>;

/**
 * Acts on the month while the simulator publishes it, on the simulator's clock (the sync stages,
 * `sync-stage.ts`): the simulator starts on `port` at `factor`, and publishing goes on once `run` ends.
 */
export interface MonthDrive {
  port: number;
  factor: number;
  run(bus: BusRun, stage: StageRunner): Promise<void>;
}

/** What the collector counted against what the one mapping makes of the month's files. */
export interface CollectorSeen {
  counted: CollectorCounts;
  expected: { consumed: number; skipped: number; unparseable: number };
  /** The refused-shapes twins of the files by their shape, and what the other lines make. */
  twins: ReturnType<typeof refusedTwins>;
}

/** The delivery stages of one path: the regular share, the held share, and what ingest made of them. */
export interface MonthDelivery {
  /** The header's words for the path. */
  readonly words: string;
  month(stage: StageRunner): Promise<Generated>;
  held(stage: StageRunner, generated: Generated): Promise<void>;
  totals(): Promise<IngestTotals>;
  collector(): CollectorSeen | undefined;
  outage(): OutageSeen | undefined;
  stop(): Promise<void>;
}

function readMonth(monthDir: string, dropEvent: string | undefined): Generated {
  const lines = (file: string) => {
    try {
      return readFileSync(join(monthDir, file), "utf8")
        .split("\n")
        .filter((l) => l !== "");
    } catch {
      return [];
    }
  };
  const events = lines("events.jsonl");
  const heldNotifications = lines("held-back.jsonl").length;
  // events.jsonl holds the published share's events, then the held share's, one per held transition
  // (decision 210): the last `heldNotifications` lines are what a release delivers.
  const keep = (line: string) =>
    dropEvent === undefined || (JSON.parse(line) as { event_id: string }).event_id !== dropEvent;
  const published = events.slice(0, events.length - heldNotifications);
  const held = events.slice(events.length - heldNotifications);
  return {
    oracle: readOracle(readFileSync(join(monthDir, "oracle.json"), "utf8")),
    published: published.filter(keep),
    held: held.filter(keep),
    dropped: events.length - events.filter(keep).length,
    notifications: lines("notifications.jsonl").length,
    heldNotifications,
  };
}

const generatedLine = (g: Generated, monthDir: string) =>
  `${g.oracle.resources.length} resources, ${g.published.length + g.held.length + g.dropped} events (${g.held.length} held back${g.dropped > 0 ? `, ${g.dropped} dropped on purpose` : ""}) in ${monthDir}`;

interface DeliveryOptions {
  programs: Programs;
  stack: ScenarioStack;
  cloud: string;
  /** `simulator run` arguments but `--out`. */
  simulatorArgs: readonly string[];
  /** Variables the simulator needs beyond its cloud and broker (project registration's). */
  simulatorEnv: Record<string, string>;
  monthDir: string;
  dropEvent: string | undefined;
  /** The month holds a share back until it is finalized. */
  holdsBack: boolean;
  /** The runner's outage stage runs while the month is published (the broker path only). */
  outage: boolean;
  /** Acts while the month is published (the broker path only). */
  drive?: MonthDrive;
  period: Period;
}

/** The path built first: the simulator writes the month, the runner posts `events.jsonl` to ingest. */
export function fileDelivery(options: DeliveryOptions): MonthDelivery {
  const { stack } = options;
  let totals: IngestTotals = { posted: 0, batches: 0, accepted: 0, duplicates: 0, rejected: 0 };
  const post = async (lines: readonly string[]) => {
    const sent = await postEventLines(
      (body) =>
        fetch(`${stack.reportingUrl}/api/v1/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${stack.ingestSecret}`, "content-type": "application/json" },
          body,
        }),
      lines,
    );
    totals = {
      posted: totals.posted + sent.posted,
      batches: totals.batches + sent.batches,
      accepted: totals.accepted + sent.accepted,
      duplicates: totals.duplicates + sent.duplicates,
      rejected: totals.rejected + sent.rejected,
    };
    return sent;
  };
  return {
    words: "events posted from the simulator's files to the ingest API",
    async month(stage) {
      const generated = await stage(
        "generate",
        async () => {
          await options.programs.run("simulator", [...options.simulatorArgs, "--out", options.monthDir], {
            ...options.simulatorEnv,
            SVC_SIM_CLOUD: options.cloud,
          });
          return readMonth(options.monthDir, options.dropEvent);
        },
        (g) => generatedLine(g, options.monthDir),
      );
      await stage(
        "deliver",
        () => post(generated.published),
        (t) =>
          `${t.posted} events posted in ${t.batches} batches: ${t.accepted} accepted, ${t.duplicates} duplicates, ${t.rejected} refused`,
      );
      return generated;
    },
    async held(stage, generated) {
      await stage(
        "release",
        () => post(generated.held),
        (t) => `${t.posted} held events posted after finalizing: ${t.accepted} accepted`,
      );
    },
    totals: async () => totals,
    collector: () => undefined,
    outage: () => undefined,
    stop: async () => {},
  };
}

/** The events the Reporting API stored for the cloud and the dead letters it kept, in its database. */
async function storedCounts(url: string, cloud: string): Promise<{ stored: number; refused: number }> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    // The month's own events: what a sync writes is the sync stages' to account for.
    const [stored] = await sql<{ n: number }[]>`select count(*)::int as n from events
      where cloud = ${cloud} and source <> 'reconciliation'`;
    const [refused] = await sql<{ n: number }[]>`select count(*)::int as n from rejected_events`;
    return { stored: stored?.n ?? 0, refused: refused?.n ?? 0 };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** What the Reporting API stored and refused for the cloud, against what was posted. */
async function storedTotals(url: string, cloud: string, posted: number): Promise<IngestTotals> {
  const { stored: accepted, refused: rejected } = await storedCounts(url, cloud);
  return { posted, batches: 0, accepted, duplicates: posted - accepted - rejected, rejected };
}

/**
 * After an outage the collector's counters started again with its process, so the month is carried
 * when the queue holds nothing ready, the collector's outbox is empty, and the Reporting API holds
 * every event of the month's files: a lost event keeps this from holding and names the shortfall.
 */
async function drainedAfterOutage(options: {
  collector: CollectorProcess;
  amqpUrl: string;
  reportingDbUrl: string;
  cloud: string;
  events: number;
  timeoutMs: number;
}): Promise<{ stored: number; buffered: number; ready: number }> {
  let seen = { stored: 0, buffered: 0, ready: 0 };
  await waitFor(
    async () => {
      const [counts, { stored }, ready] = await Promise.all([
        collectorCounts(options.collector),
        storedCounts(options.reportingDbUrl, options.cloud),
        queueDepth(options.amqpUrl, queueName),
      ]);
      seen = { stored, buffered: counts.buffered, ready: ready ?? 0 };
      return stored >= options.events && counts.buffered === 0 && seen.ready === 0;
    },
    {
      timeoutMs: options.timeoutMs,
      intervalMs: 500,
      onTimeout: () =>
        new Error(
          `the month was not carried in ${options.timeoutMs / 1000} s after the outage: ${seen.stored} of ${options.events} events stored, ${seen.buffered} in the collector's outbox, ${seen.ready} ready in the queue`,
        ),
    },
  );
  return seen;
}

const distinctEvents = (lines: readonly string[]) =>
  new Set(lines.map((l) => (JSON.parse(l) as { event_id: string }).event_id)).size;

/**
 * The path of a deployment: the simulator publishes the month on RabbitMQ (`--factor 0`, its files
 * kept with `--out`), the collector carries it to the Reporting API; a held share is published by
 * `POST /release` on the simulator's control endpoint.
 */
export function busDelivery(options: DeliveryOptions): MonthDelivery {
  const broker = options.stack.broker;
  if (broker === undefined) throw new Error("the broker path needs a stack started with the broker");
  let bus: BusRun | undefined;
  let seen: CollectorSeen | undefined;
  let outage: OutageSeen | undefined;
  let events = 0;
  const drain = async (files: readonly string[]) => {
    const lines = monthLines(options.monthDir, files);
    const expected = expectedCounts(lines, options.cloud);
    const counted = await collectorDrained(
      broker.collector,
      expected.consumed + expected.skipped + expected.unparseable,
      600_000,
    );
    seen = {
      counted,
      expected,
      twins: refusedTwins(lines, { cloud: options.cloud, exchanges: collectorExchanges }),
    };
    return seen;
  };
  const collectedLine = (c: CollectorSeen) =>
    `the collector consumed ${c.counted.consumed}, skipped ${c.counted.skipped}, unparseable ${c.counted.unparseable}; its outbox drained into the Reporting API`;
  return {
    words: "published on RabbitMQ by the simulator, carried by the collector to the Reporting API",
    async month(stage) {
      const start = (factor: string) =>
        startBusRun({
          args: [...options.simulatorArgs, "--out", options.monthDir, "--factor", factor],
          env: { ...options.simulatorEnv, SVC_SIM_CLOUD: options.cloud, SVC_SIM_AMQP_URL: broker.amqpUrl },
          logFile: options.programs.logOf("simulator"),
          holdsBack: options.holdsBack,
          port: options.drive?.port,
        });
      if (options.outage) {
        const generated = await stage(
          "outage",
          async () => {
            // The clock starts held: the runner drives it from mark to mark.
            const run = await start("1");
            bus = run;
            outage = await driveOutage({
              bus: run,
              collector: broker.collector,
              reporting: options.stack.reporting,
              period: options.period,
            });
            await run.published();
            return readMonth(options.monthDir, undefined);
          },
          (g) =>
            `${g.notifications} notifications published on RabbitMQ through an outage: ${outage === undefined ? "" : outageLine(outage)}`,
        );
        events = distinctEvents(generated.published);
        await stage(
          "collect",
          () =>
            drainedAfterOutage({
              collector: broker.collector,
              amqpUrl: broker.amqpUrl,
              reportingDbUrl: options.stack.reportingDbUrl,
              cloud: options.cloud,
              events,
              timeoutMs: 300_000,
            }),
          (d) =>
            `the queue is empty, the collector's outbox drained: the Reporting API holds ${d.stored} of the month's ${events} events`,
        );
        return generated;
      }
      if (options.drive !== undefined) {
        bus = await start(String(options.drive.factor));
        await options.drive.run(bus, stage);
      }
      const generated = await stage(
        "publish",
        async () => {
          bus ??= await start("0");
          await bus.published();
          return readMonth(options.monthDir, undefined);
        },
        (g) =>
          `${g.notifications} notifications published on RabbitMQ${g.heldNotifications > 0 ? `, ${g.heldNotifications} held for the release` : ""}; ${generatedLine(g, options.monthDir)}`,
      );
      await stage("collect", () => drain(["notifications.jsonl"]), collectedLine);
      return generated;
    },
    async held(stage) {
      await stage(
        "release",
        async () => {
          await bus?.release();
          return drain(["notifications.jsonl", "held-back.jsonl"]);
        },
        (c) => `POST /release published the held share; ${collectedLine(c)}`,
      );
    },
    // After an outage the collector's counters began again: what was posted is what the month sends.
    totals: () =>
      storedTotals(
        options.stack.reportingDbUrl,
        options.cloud,
        outage === undefined ? (seen?.counted.consumed ?? 0) : events,
      ),
    collector: () => seen,
    outage: () => outage,
    stop: async () => {
      await bus?.stop();
    },
  };
}
