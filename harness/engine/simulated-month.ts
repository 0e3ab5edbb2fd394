import { join } from "node:path";
import { Writable } from "node:stream";
import { platformA } from "../../lib/billing/events/event.ts";
import { interpretDelivery } from "../../lib/billing/oslo/interpret-delivery.ts";
import { Authenticator } from "../../lib/billing/reporting/auth/authenticator.ts";
import { defaultSyncSettings } from "../../lib/billing/reporting/routes/sync-route.ts";
import { HealthMonitor } from "../../lib/billing/reporting/server/health-monitor.ts";
import { reportingApp } from "../../lib/billing/reporting/server/reporting-app.ts";
import { ReportingMetrics } from "../../lib/billing/reporting/server/reporting-metrics.ts";
import type { FaultSwitch } from "../../lib/billing/simulator/fault-switch.ts";
import { generateMonth } from "../../lib/billing/simulator/generate-month.ts";
import { defaultScale, type Tenant } from "../../lib/billing/simulator/month.ts";
import type { NotificationLine } from "../../lib/billing/simulator/notification-line.ts";
import type { Oracle } from "../../lib/billing/simulator/oracle.ts";
import { readOracle } from "../../lib/billing/simulator/oracle-document.ts";
import { runFileMode } from "../../lib/billing/simulator/run-file-mode.ts";
import { createLogger } from "../../lib/foundation/log/logger.ts";
import { createRegistry } from "../../lib/foundation/metrics/registry.ts";
import { parsePeriod } from "../../lib/foundation/time/period.ts";
import { postEventLines, sendToApp } from "../reporting/post-event-lines.ts";
import type { ReportingTestDatabase } from "../reporting/reporting-database.ts";

/** A simulator month written in file mode, as the acceptance tests feed it to the stack. */
export interface SimulatedMonth {
  dir: string;
  oracle: Oracle;
  /** `events.jsonl` as lines: the published share first, then the held one (decision 210). */
  eventLines: string[];
  /** How many of `eventLines`, at the end, are the held share's (`held-back`; 0 without it). */
  heldEvents: number;
  /** The month's tenants, as the simulator registers them (docs/simulator.md#registering-the-projects). */
  tenants: Tenant[];
}

export async function simulateMonth(options: {
  dir: string;
  seed: number;
  faults: FaultSwitch[];
  cloud: string;
  period?: string;
  tenants?: number;
}): Promise<SimulatedMonth> {
  const period = parsePeriod(options.period ?? "2026-10");
  const scale = { ...defaultScale, tenants: options.tenants ?? 1 };
  await runFileMode(
    {
      period,
      seed: options.seed,
      factor: 0,
      faults: options.faults,
      out: options.dir,
      metricsIntervalSeconds: 300,
      registerProjects: false,
      allowRemoteBroker: false,
      waitForCollectorMs: 0,
      scale,
      novaFormat: "legacy",
      extraTypes: [],
    },
    options.cloud,
    options.dir,
  );
  const held = Bun.file(join(options.dir, "held-back.jsonl"));
  const heldLines = (await held.exists()) ? (await held.text()).split("\n").filter((l) => l !== "") : [];
  const target = { platform: platformA, cloud: options.cloud };
  const heldEvents = heldLines.filter(
    (l) => interpretDelivery((JSON.parse(l) as NotificationLine).body, target).outcome === "consumed",
  ).length;
  const { tenants } = generateMonth({ seed: options.seed, period, cloud: options.cloud, scale });
  const oracle = readOracle(await Bun.file(join(options.dir, "oracle.json")).text());
  const eventLines = (await Bun.file(join(options.dir, "events.jsonl")).text())
    .split("\n")
    .filter((l) => l !== "");
  return { dir: options.dir, oracle, eventLines, heldEvents, tenants };
}

const quiet = new Writable({ write: (_c, _e, done) => done() });

/**
 * The reporting server's routes in process, with authentication disabled, so a test ingests through
 * `POST /api/v1/events` exactly as a collector would, without a listener.
 */
export function ingestThroughApi(db: ReportingTestDatabase) {
  const registry = createRegistry();
  const app = reportingApp({
    logger: createLogger({ service: "svc-reporting", level: "ERROR", destination: quiet }),
    sql: db.sql,
    partitions: db.partitions,
    auth: new Authenticator({ mode: "disabled", sql: db.sql, internalToken: undefined }),
    health: new HealthMonitor(async () => {}, { thresholdMs: 600_000 }),
    registry,
    metrics: new ReportingMetrics(registry),
    metricsEnabled: false,
    requireSizeSchema: false,
    attributingRelationTypes: ["infrastructure_tenant"],
    clouds: new Map(),
    sync: defaultSyncSettings,
  });
  /** Posts the lines in batches of 1000; returns what ingest accepted, deduplicated and refused. */
  return (lines: readonly string[]) => postEventLines(sendToApp(app), lines);
}
