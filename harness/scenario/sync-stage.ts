/**
 * The sync stages of a scenario that needs `reconcile` (decision 540): while the simulator publishes
 * the month on its clock, the runner holds the clock where it acts, lets the collector carry what is
 * due, and calls `POST /internal/sync/{cloud}` on the Reporting API, whose clouds file points the
 * `platform_a` adapter at the simulator's fake platform API. At the month's first instant a sync finds
 * what `missing-create` withheld; mid-month an operator puts listeners and pools on the live load
 * balancers (`PUT /load-balancer-members/{id}`), and a sync two virtual hours later books them; a
 * third sync two virtual minutes after it must write nothing. The rest of the month then goes out as fast as the
 * broker confirms.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { type EventRow, eventColumns, storedEventOf } from "../../lib/billing/reporting/reads/event-list.ts";
import type { SyncResult } from "../../lib/billing/reporting/sync/sync-run.ts";
import { type MemberBooking, withBookedMembers } from "../../lib/billing/simulator/booked-members.ts";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { encodeOracle, readOracle } from "../../lib/billing/simulator/oracle-document.ts";
import { readReplayFile } from "../../lib/billing/simulator/replay.ts";
import { instantFromMs, msOf } from "../../lib/foundation/time/instant.ts";
import type { Period } from "../../lib/foundation/time/period.ts";
import type { CollectorProcess } from "../collector/collector-process.ts";
import { freePort } from "../process/free-port.ts";
import { waitFor } from "../process/wait-for.ts";
import { writePlatformCloudFiles } from "../reporting/platform-cloud-files.ts";
import { type BusRun, collectorDrained } from "./bus-month.ts";
import type { MonthDrive, StageRunner } from "./month-delivery.ts";
import type { ScenarioStack } from "./scenario-stack.ts";

/** A thousandth of a virtual second per wall second: the clock stands while the runner acts. */
const standing = 0.001;
/** Virtual seconds a change must be old before a sync corrects it (the scenario's settle window). */
const scenarioSettleS = 60;
/** How long after the operator's change the booking sync runs: well past the settle window. */
const bookingDelayMs = 2 * 3_600_000;
/** The Reporting API's default budget, and the margin its route answers within (decision 179). */
const syncTimeoutMs = (45 + 20) * 1000;

/** Listeners and pools the runner put on one load balancer, and the virtual instant it did. */
interface MemberSetting {
  resource_id: string;
  listeners: number;
  pools: number;
  at: string;
}

/** What the sync stages did. */
export interface SyncSeen {
  /** At the month's first instant: repairs what `missing-create` withheld. */
  repair: SyncResult;
  members: MemberSetting[];
  /** Two virtual hours after the members: books them. */
  book: SyncResult;
  /** Right after `book`, once its events are past the settle window: writes nothing. */
  again: SyncResult;
  /** The oracle with the booked members (`withBookedMembers`), which `compare` reads. */
  oraclePath: string;
}

/** What the Reporting API must be started with for the syncs: the clouds files and the sync settings. */
export interface SyncSetup {
  /** The simulator's control port, named in the clouds.yaml before the simulator starts. */
  port: number;
  reportingEnv: Record<string, string>;
}

/**
 * Writes the clouds file and clouds.yaml (into `dir/reconcile`) that point `cloud`'s `platform_a`
 * adapter at the simulator's fake platform API on a port chosen now.
 */
export async function prepareSyncs(dir: string, cloud: string): Promise<SyncSetup> {
  const port = await freePort();
  const files = join(dir, "reconcile");
  mkdirSync(files, { recursive: true });
  const { cloudsConfig, cloudsYaml } = writePlatformCloudFiles(files, [
    { name: cloud, url: `http://127.0.0.1:${port}` },
  ]);
  return {
    port,
    reportingEnv: {
      SVC_REPORTING_CLOUDS_CONFIG: cloudsConfig,
      OS_CLIENT_CONFIG_FILE: cloudsYaml,
      SVC_REPORTING_SYNC_ALLOW_AT: "true",
      SVC_REPORTING_SYNC_SETTLE_S: String(scenarioSettleS),
    },
  };
}

/** Where a run keeps the events its syncs wrote, which `scenario explain` folds beside the month's. */
export const syncEventsPath = (dir: string) => join(dir, "reconcile/events.jsonl");

/**
 * Writes the events the syncs stored for `cloud` (source `reconciliation`) to `syncEventsPath(dir)`,
 * one stored event per line in history order: the month's files do not hold them.
 */
export async function keepSyncEvents(reportingDbUrl: string, cloud: string, dir: string): Promise<number> {
  const sql = postgres(reportingDbUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<EventRow[]>`
      select ${eventColumns(sql)} from events where cloud = ${cloud} and source = 'reconciliation'
      order by timestamp, event_id`;
    mkdirSync(join(dir, "reconcile"), { recursive: true });
    writeFileSync(syncEventsPath(dir), rows.map((r) => `${JSON.stringify(storedEventOf(r))}\n`).join(""));
    return rows.length;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** How a SyncResult reads in a stage line. */
function syncLine(r: SyncResult): string {
  const per = (kind: "created" | "updated" | "deleted") => {
    const types = r.resource_types.filter((t) => t[kind] > 0).map((t) => `${t.resource_type} ${t[kind]}`);
    return `${kind} ${r[kind]}${types.length > 0 ? ` (${types.join(", ")})` : ""}`;
  };
  return `at ${r.at}: observed ${r.observed}, ${per("created")}, ${per("updated")}, ${per("deleted")}, deferred ${r.deferred}, settling ${r.settling}; ingest accepted ${r.accepted}, rejected ${r.rejected}`;
}

/**
 * Load balancers live without a break from `from` to `until` by the oracle, each given listeners and
 * pools by its place in id order: one to three listeners, one or two pools.
 */
export function membersFor(oracle: Oracle, from: number, until: number): Omit<MemberSetting, "at">[] {
  return oracle.resources
    .filter((r) => r.resource_type === "loadbalancer")
    .filter((r) => {
      let reached = from;
      for (const i of r.intervals)
        if (msOf(i.from) <= reached && msOf(i.to) > reached && i.state === "active") reached = msOf(i.to);
      return reached > until;
    })
    .map((r, i) => ({ resource_id: r.resource_id, listeners: 1 + (i % 3), pools: 1 + (i % 2) }));
}

/** `POST /internal/sync/{cloud}` at the simulator's virtual now: the SyncResult. */
async function syncAt(stack: ScenarioStack, cloud: string, bus: BusRun): Promise<SyncResult> {
  const at = (await bus.clock()).virtual_now;
  const answer = await fetch(`${stack.reportingUrl}/internal/sync/${cloud}`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.internalToken}`, "content-type": "application/json" },
    body: JSON.stringify({ at }),
    signal: AbortSignal.timeout(syncTimeoutMs),
  });
  if (answer.status !== 200)
    throw new Error(`POST /internal/sync/${cloud} answered ${answer.status}: ${await answer.text()}`);
  return (await answer.json()) as SyncResult;
}

/**
 * The simulator's clock as the runner drives it: moved to a mark and stood there, and what is due by
 * then carried through the collector before the runner acts.
 */
class MonthClock {
  constructor(
    private readonly bus: BusRun,
    /** The virtual instant of each line of notifications.jsonl, in order. */
    private readonly lines: readonly { at: number }[],
    private readonly collector: CollectorProcess,
  ) {}

  async now(): Promise<number> {
    return msOf((await this.bus.clock()).virtual_now);
  }

  /** Lines go out in order, each once the clock has reached it: at a standing clock, those dated at or before it. */
  private due(ms: number): number {
    const next = this.lines.findIndex((l) => l.at > ms);
    return next === -1 ? this.lines.length : next;
  }

  /** Waits until the simulator has published what is due and the collector has carried it. */
  async carried(): Promise<void> {
    const now = await this.now();
    await waitFor(async () => (await this.bus.clock()).published >= this.due(now), {
      timeoutMs: 120_000,
      intervalMs: 100,
      onTimeout: () => new Error(`the simulator did not publish what is due by ${instantFromMs(now)}`),
    });
    await collectorDrained(this.collector, this.due(now), 300_000);
  }

  /** Moves the clock to `mark` in about two wall seconds, then stands it again. */
  private async hop(mark: number): Promise<void> {
    const now = await this.now();
    if (mark <= now) return;
    await this.bus.setFactor((mark - now) / 2000);
    await waitFor(async () => (await this.now()) >= mark, {
      timeoutMs: 120_000,
      intervalMs: 20,
      onTimeout: () => new Error(`the simulator's clock did not reach ${instantFromMs(mark)} in 2 min`),
    });
    await this.bus.setFactor(standing);
  }

  /** Nine tenths of the way, then the rest, so that a slow answer on a loaded machine overshoots by little. */
  async reach(mark: number): Promise<void> {
    const now = await this.now();
    await this.hop(now + (mark - now) * 0.9);
    await this.hop(mark);
  }
}

/** Puts the planned listeners and pools on the fake platform API's load balancers, each at its instant. */
async function placeMembers(
  port: number,
  planned: readonly Omit<MemberSetting, "at">[],
): Promise<MemberSetting[]> {
  const members: MemberSetting[] = [];
  for (const m of planned) {
    const answer = await fetch(`http://127.0.0.1:${port}/load-balancer-members/${m.resource_id}`, {
      method: "PUT",
      body: JSON.stringify({ listeners: m.listeners, pools: m.pools }),
    });
    if (answer.status !== 200)
      throw new Error(
        `PUT /load-balancer-members/${m.resource_id} answered ${answer.status}: ${await answer.text()}`,
      );
    members.push({ ...m, at: ((await answer.json()) as { from: string }).from });
  }
  return members;
}

/** The oracle with the members the booking sync booked, written beside the month for `compare`. */
function writeBookedOracle(
  monthDir: string,
  oracle: Oracle,
  members: readonly MemberSetting[],
  at: string,
): string {
  const bookings: MemberBooking[] = members.map((m) => ({
    resource_id: m.resource_id,
    from: at,
    listeners: m.listeners,
    pools: m.pools,
  }));
  const oraclePath = join(monthDir, "oracle-booked.json");
  writeFileSync(oraclePath, encodeOracle(withBookedMembers(oracle, bookings)));
  return oraclePath;
}

/**
 * The drive of the month's publication for the sync stages: started with the clock all but standing,
 * it returns once the booking syncs are done and the clock runs at factor 0 again.
 */
export function syncDrive(options: {
  setup: SyncSetup;
  stack: ScenarioStack;
  collector: CollectorProcess;
  cloud: string;
  monthDir: string;
  period: Period;
}): MonthDrive & { seen(): SyncSeen | undefined } {
  const { stack, cloud, monthDir } = options;
  let seen: SyncSeen | undefined;
  return {
    port: options.setup.port,
    factor: standing,
    seen: () => seen,
    async run(bus: BusRun, stage: StageRunner) {
      // The control endpoint listens once the simulator has seen the collector's queue; the month's
      // files are written by then.
      await waitFor(async () => (await bus.clock().catch(() => null)) !== null, {
        timeoutMs: 120_000,
        intervalMs: 100,
        onTimeout: () => new Error("the simulator's control endpoint did not answer in 2 min"),
      });
      const lines = (await readReplayFile(join(monthDir, "notifications.jsonl"))).lines;
      const oracle = readOracle(readFileSync(join(monthDir, "oracle.json"), "utf8"));
      const clock = new MonthClock(bus, lines, options.collector);
      const carriedSync = async () => {
        await clock.carried();
        return syncAt(stack, cloud, bus);
      };
      const repair = await stage(
        "sync",
        carriedSync,
        (r) => `${syncLine(r)} (the month's first instant: repairs missing-create)`,
      );
      const from = msOf(options.period.from);
      await clock.reach(from + (msOf(options.period.to) - from) / 2);
      const settingAt = await clock.now();
      const planned = membersFor(oracle, settingAt, settingAt + bookingDelayMs + 3_600_000);
      if (planned.length === 0)
        throw new Error(
          `no load balancer of the month lives from ${instantFromMs(settingAt)} past the booking sync`,
        );
      const members = await placeMembers(options.setup.port, planned);
      await clock.reach(settingAt + bookingDelayMs);
      const book = await stage(
        "sync",
        carriedSync,
        (r) =>
          `${syncLine(r)} (${members.length} load balancers given listeners and pools at ${instantFromMs(settingAt)})`,
      );
      // Past the settle window of what the booking wrote, so that the run judges every resource again.
      await clock.reach(msOf(book.at) + (scenarioSettleS + 60) * 1000);
      const again = await stage(
        "sync",
        carriedSync,
        (r) => `${syncLine(r)} (again, past the settle window: nothing to correct)`,
      );
      const oraclePath = writeBookedOracle(monthDir, oracle, members, book.at);
      seen = { repair, members, book, again, oraclePath };
      await bus.setFactor(0);
    },
  };
}
