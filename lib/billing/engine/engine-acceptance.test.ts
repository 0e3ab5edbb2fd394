import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EngineTestStack, engineTestStack } from "../../../harness/engine/engine-test-stack.ts";
import { ingestThroughApi, simulateMonth } from "../../../harness/engine/simulated-month.ts";
import { services } from "../../../harness/test-services.ts";
import { loadSeries } from "../../../harness/traffic/load-series.ts";
import { parsePeriod } from "../../foundation/time/period.ts";
import { compareFiles } from "../compare/compare-files.ts";
import { readCounterSources } from "../metering/counter-sources.ts";
import { victoriaMetricsCounterStore } from "../metering/counter-store.ts";
import { readPricingModel } from "../pricing/pricing-model.ts";
import type { FaultSwitch } from "../simulator/fault-switch.ts";
import { trafficImportSeries } from "../traffic/traffic-import.ts";
import { exportRun } from "./export-run.ts";
import { runPeriod } from "./run-period.ts";

// Whole months are generated, ingested and run here; a loaded machine takes a few seconds per month.
setDefaultTimeout(120_000);

const pricingPath = new URL("../../../pricing/default.yaml", import.meta.url).pathname;
const model = readPricingModel(readFileSync(pricingPath, "utf8"));
const sources = readCounterSources(
  readFileSync(new URL("../../../pricing/counter-sources.yaml", import.meta.url), "utf8"),
);
const period = parsePeriod("2026-10");

let stack: EngineTestStack;
let vmUrl: string;
let ingest: ReturnType<typeof ingestThroughApi>;
let dir: string;

beforeAll(async () => {
  [stack, vmUrl] = await Promise.all([engineTestStack(), services.victoriaMetrics().then((vm) => vm.url)]);
  ingest = ingestThroughApi(stack.reportingDb);
  dir = mkdtempSync(join(tmpdir(), "svc-engine-acceptance-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stack.dispose();
});

/** One simulated month end to end: file mode, ingest through the API, counters, run, export, compare. */
async function month(seed: number, faults: FaultSwitch[]) {
  await stack.reportingDb.reset();
  const tag = faults.join("+") || "none";
  const cloud = `acc-${seed}-${tag}`;
  const monthDir = join(dir, `${seed}-${tag}`);
  const simulated = await simulateMonth({ dir: monthDir, seed, faults, cloud });
  const ingested = await ingest(simulated.eventLines);
  await loadSeries(vmUrl, trafficImportSeries(cloud, simulated.oracle.traffic));
  const result = await runPeriod(
    {
      engine: stack.engine,
      reporting: stack.reporting,
      counters: { sources, store: victoriaMetricsCounterStore(vmUrl) },
      statements: { relationTypes: ["managed_by", "member_of"], depth: 3 },
    },
    period,
    model,
    new Date("2026-11-05T00:00:00Z"),
  );
  const exportDir = join(monthDir, "export");
  await exportRun(stack.engine.sql, result.runId, "csv", exportDir);
  const comparison = await compareFiles({
    exportDir,
    oracle: join(monthDir, "oracle.json"),
    pricing: pricingPath,
  });
  return { simulated, ingested, result, comparison };
}

const switches: FaultSwitch[][] = [
  [],
  ["pre-existing"],
  ["duplicates"],
  ["reordering"],
  ["refused-shapes"],
  ["held-back"],
];

describe("a simulator month run, exported and compared gives zero differences", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    for (const faults of switches) {
      test(`seed ${seed}, faults ${faults.join(",") || "none"}`, async () => {
        const { comparison, result } = await month(seed, faults);
        expect(comparison.differences).toEqual([]);
        expect(comparison.resources).toBeGreaterThan(50);
        expect(result.stats.warnings).toEqual({
          metering: 0,
          counter: 0,
          attribution: 0,
          adjustment: 0,
          unpriced_resource_types: 0,
          unreadable_fields: 0,
          unregistered_projects: result.stats.warnings.unregistered_projects,
        });
      });
    }
  }
});

describe("missing-create", () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    test(`seed ${seed}: exactly the marked resources differ, and history_starts_without_create counts them`, async () => {
      const { comparison, result, simulated } = await month(seed, ["missing-create"]);
      const marked = simulated.oracle.resources
        .filter((r) => r.faults.includes("missing-create"))
        .map((r) => `${r.resource_type}/${r.resource_id}`)
        .sort();
      expect(marked.length).toBeGreaterThan(0);
      expect(comparison.differences.map((d) => d.resource)).toEqual(marked);
      expect(comparison.differences.every((d) => d.missingCreate)).toBe(true);
      // A marked volume or address that no event of the month mentions has no history to read: the
      // comparison finds it, the warning can only count the histories that exist.
      const withHistory = new Set(
        simulated.eventLines.map((l) => {
          const e = JSON.parse(l) as { resource_type: string; resource_id: string };
          return `${e.resource_type}/${e.resource_id}`;
        }),
      );
      const read = marked.filter((m) => withHistory.has(m));
      expect(read.filter((m) => m.startsWith("instance/"))).toEqual(
        marked.filter((m) => m.startsWith("instance/")),
      );
      expect(result.stats.codes.history_starts_without_create).toBe(read.length);
    });
  }
});
