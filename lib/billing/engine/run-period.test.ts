import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type EngineTestStack, engineTestStack } from "../../../harness/engine/engine-test-stack.ts";
import { freePort } from "../../../harness/process/free-port.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { readCounterSources } from "../metering/counter-sources.ts";
import { victoriaMetricsCounterStore } from "../metering/counter-store.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import { finalizePeriod } from "./finalize-period.ts";
import { runPeriod, runReport } from "./run-period.ts";

const model = readPricingModel(
  readFileSync(new URL("../../../pricing/default.yaml", import.meta.url), "utf8"),
);
const period = parsePeriod("2026-10");
let stack: EngineTestStack;

beforeAll(async () => {
  stack = await engineTestStack();
});
afterAll(async () => {
  await stack.dispose();
});

const deps = () => ({
  engine: stack.engine,
  reporting: stack.reporting,
  counters: null,
  statements: { relationTypes: ["managed_by", "member_of"], depth: 3 },
});

async function insertEvent(e: {
  id: string;
  at: string;
  type: string;
  resource: string;
  resourceType?: string;
  project: string;
  payload: object;
}) {
  await stack.reportingDb.partitions.ensureFor([e.at]);
  await stack.reportingDb
    .sql`insert into events (event_id, timestamp, event_type, platform, cloud, resource_type,
    resource_id, project_id, source, payload) values (${e.id}, ${e.at}, ${e.type}, 'platform_a', 'c1',
    ${e.resourceType ?? "instance"}, ${e.resource}, ${e.project}, 'collector', ${JSON.stringify(e.payload)})`;
}

describe("run", () => {
  test("meters, rates and states a small month", async () => {
    const size = { vcpus: 2, ram_gb: 4, disk_gb: 40, flavor: "m1.medium" };
    await insertEvent({
      id: "e1",
      at: "2026-09-20T00:00:00.000Z",
      type: "compute.instance.create.end",
      resource: "i1",
      project: "p1",
      payload: { state: "active", size },
    });
    await insertEvent({
      id: "e2",
      at: "2026-10-11T00:00:00.000Z",
      type: "compute.instance.power_off.end",
      resource: "i1",
      project: "p1",
      payload: { state: "shutoff" },
    });
    await insertEvent({
      id: "e3",
      at: "2026-10-05T00:00:00.000Z",
      type: "compute.instance.exists",
      resource: "i2",
      project: "p2",
      payload: { state: "active", size },
    });
    const result = await runPeriod(deps(), period, model, new Date("2026-11-02T00:00:00Z"));
    expect(runReport(result, period, model)).toEqual([
      `run ${result.runId} completed for 2026-10 with pricing model svc-default-2026`,
      "metered 2 candidates into 3 usage records and 6 rated records",
      "warnings recorded in runs.stats: metering=1 counter=2 attribution=0 adjustment=0 unpriced_resource_types=0 unreadable_fields=0 unregistered_projects=2 (history_starts_without_create=1 counter_source_missing=2 project_not_registered=2)",
    ]);
    const lines = await stack.engine
      .sql`select project_id, dimension, quantity::text, amount::text from rated_lines
      where run_id = ${result.runId} order by resource_id, dimension`;
    // i1: 240 h active then 504 h shut off (disk only); i2: 648 h active from its first event.
    expect(lines.map((l) => [l.project_id, l.dimension, l.quantity, l.amount])).toEqual([
      ["p1", "disk_gb", "29760.000000", "4.17"],
      ["p1", "ram_gb", "960.000000", "4.03"],
      ["p1", "vcpus", "480.000000", "6.00"],
      ["p2", "disk_gb", "25920.000000", "3.63"],
      ["p2", "ram_gb", "2592.000000", "10.89"],
      ["p2", "vcpus", "1296.000000", "16.20"],
    ]);
    const statements = await stack.engine.sql`select project_id, total::text, adjusted from statements
      where run_id = ${result.runId} order by project_id`;
    expect(statements.map((s) => [s.project_id, s.total, s.adjusted])).toEqual([
      ["p1", "14.20", false],
      ["p2", "30.72", false],
    ]);
  });

  test("a metrics store that cannot be reached: counter warnings, the rerun hint, and no finalization", async () => {
    const sources = readCounterSources(
      readFileSync(new URL("../../../pricing/counter-sources.yaml", import.meta.url), "utf8"),
    );
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await runPeriod(
      { ...deps(), counters: { sources, store: victoriaMetricsCounterStore(closed, { timeoutMs: 2_000 }) } },
      period,
      model,
      new Date("2026-11-02T00:00:00Z"),
    );
    expect(result.stats.codes.counter_store_unreachable).toBe(2);
    const report = runReport(result, period, model);
    expect(report[3]).toBe(
      "the metrics store could not be read for 2 resources: egress is missing, rerun the period once it answers (engine run --period 2026-10)",
    );
    expect(report[3]).not.toContain(closed);
    await expect(finalizePeriod(stack.engine.sql, period, result.runId)).rejects.toThrow(
      `run ${result.runId} could not read its counters for 2 resources: rerun 2026-10 once the metrics store answers, then finalize that run`,
    );
  });
});
